# laked as a service: its configuration file and sd_notify (laked/service.c).
UNIT_TESTS += service
UNIT_SRCS_service := laked/service.c
# laked's receive loop on scripted libnl results (it includes laked/netlink.c).
UNIT_TESTS += laked_recv
UNIT_SRCS_laked_recv := laked/log.c common/cu_errors.c
UNIT_CFLAGS_laked_recv = $(NL_CFLAGS)
UNIT_LIBS_laked_recv = $(NL_LIBS)
$(BUILD)/unit/test_laked_recv: laked/netlink.c laked/daemon.h laked/laked.h
