# Each header of include/uapi/lake/ compiled alone (tests/unit/test_uapi.c),
# as a user-space program would include it. The compiler finds only the
# system's kernel UAPI headers, linked into UAPI_SYS, and include/uapi/
# through UAPI_ROOT: no libc, no other lake header.
UNIT_TESTS += uapi
UAPI_SYS := $(BUILD)/unit/uapi/sys
UAPI_ROOT := $(BUILD)/unit/uapi/root
UNIT_CFLAGS_uapi = -DUAPI_CC='"$(CC)"' -DUAPI_SYS='"$(abspath $(UAPI_SYS))"' \
	-DUAPI_ROOT='"$(abspath $(UAPI_ROOT))"' \
	-DUAPI_HEADERS='$(foreach h,$(notdir $(wildcard include/uapi/lake/*.h)),"$(h)",)'
$(BUILD)/unit/test_uapi: $(UAPI_SYS)/asm $(UAPI_ROOT)/uapi

$(UAPI_SYS)/asm:
	@mkdir -p $(@D)
	ln -sfn /usr/include/linux $(@D)/linux
	ln -sfn /usr/include/asm-generic $(@D)/asm-generic
	ln -sfn /usr/include/$(shell $(CC) -print-multiarch)/asm $@

$(UAPI_ROOT)/uapi:
	@mkdir -p $(@D)
	ln -sfn $(abspath include/uapi) $@
