UNIT_TESTS += wire wire_checks
UNIT_SRCS_wire := common/wire.c common/wire_api.c tests/unit/wire_examples.c
UNIT_SRCS_wire_checks := common/wire.c common/wire_api.c tests/unit/wire_examples.c
