UNIT_TESTS += wire wire_checks
UNIT_SRCS_wire := lakelib/wire.c lakelib/wire_api.c tests/unit/wire_examples.c
UNIT_SRCS_wire_checks := lakelib/wire.c lakelib/wire_api.c tests/unit/wire_examples.c
