# laked as a service: its configuration file and sd_notify (laked/service.c).
UNIT_TESTS += service
UNIT_SRCS_service := laked/service.c
