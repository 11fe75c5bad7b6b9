# LinnOS's CPU inference, built with the kernel's code-generation flags
# (the ones arch/x86/Makefile and the top Makefile give a module object on
# Debian's 6.12; -mcmodel=kernel and the retpoline thunks aside, which a
# user-space program cannot have). The SIMD files add their instruction
# sets as Kbuild does.
BENCHES += linnos
LINNOS_BENCH_OBJS := $(addprefix $(BUILD)/bench/linnos/,model.o infer_scalar.o \
	infer_avx2.o infer_avx512.o)
BENCH_SRCS_linnos := $(LINNOS_BENCH_OBJS) tests/unit/linnos_util.c
BENCH_LIBS_linnos := -lm -no-pie
LINNOS_KFLAGS := -O2 -fno-PIE -fno-strict-aliasing -fno-common -funsigned-char \
	-mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mno-80387 -mno-fp-ret-in-387 \
	-mpreferred-stack-boundary=3 -mskip-rax-setup -mtune=generic -mno-red-zone \
	-fno-jump-tables -fcf-protection=branch -mharden-sls=all -falign-jumps=1 \
	-falign-loops=1 -falign-functions=16 -fstack-protector-strong \
	-ftrivial-auto-var-init=zero -fno-strict-overflow -fconserve-stack \
	-fno-delete-null-pointer-checks -fno-allow-store-data-races

$(BUILD)/bench/linnos/%.o: examples/linnos/%.c $(wildcard examples/linnos/*.h) include/lake/port.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) -Iinclude $(LINNOS_KFLAGS) $(LINNOS_SIMD_$*) -c $< -o $@
