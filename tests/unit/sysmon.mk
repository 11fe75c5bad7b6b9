# examples/sysmon's core (ref.c, knn.h), its host-device kernels
# (sysmon_knn.so) and the shipped reference.
UNIT_TESTS += sysmon
UNIT_SRCS_sysmon := examples/sysmon/ref.c
UNIT_LIBS_sysmon := -ldl -lm
