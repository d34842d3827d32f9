# tosac build. `make` builds build/bin/{tosac,tosac-run}; see README.md for the other goals.
LLVM_CONFIG ?= llvm-config-22
BUILD       ?= build
CC          ?= gcc
CXX         ?= g++
SAN         ?=

DEB_PKGS := llvm-22-dev lld-22 liblld-22-dev clang-22 clang-tools-22 mlir-22-tools \
            libcjson-dev libzstd-dev libmsgpack-dev bats bats-assert bats-support \
            python3-jsonschema python3-numpy pkg-config

LLVM_CFLAGS  := $(shell $(LLVM_CONFIG) --cflags 2>/dev/null)
LLVM_LDFLAGS := $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null)
LLVM_LIBS    := $(shell $(LLVM_CONFIG) --libs 2>/dev/null)
LLVM_INC     := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)

OPTFLAGS ?= -O2 -g
CFLAGS   := $(OPTFLAGS) -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC -fvisibility=hidden -Isrc -Iinclude $(LLVM_CFLAGS) $(SAN)
CXXFLAGS := $(OPTFLAGS) -std=c++17 -Wall -Wextra -fPIC -fvisibility=hidden -I$(LLVM_INC) -fno-exceptions -fno-rtti $(SAN)
LDLIBS   := $(LLVM_LDFLAGS) -llldELF -llldCommon $(LLVM_LIBS) -lcjson -lmsgpackc -lzstd -lz -lm -lpthread

LIB_SRC  := $(sort $(wildcard src/support/*.c src/frontend/*.c src/optimize/*.c src/partition/*.c src/codegen/*.c src/bundle/*.c src/lib/*.c))
LIB_CXX  := $(sort $(wildcard src/codegen/*.cpp))
RUN_SRC  := $(sort $(wildcard tools/tosac-run/*.c))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(LIB_CXX:%.cpp=$(BUILD)/obj/%.o)
RUN_OBJ  := $(RUN_SRC:%.c=$(BUILD)/obj/%.o)
DEPS     := $(LIB_OBJ:.o=.d) $(RUN_OBJ:.o=.d) $(BUILD)/obj/src/main.d

# The emulator library (src/emu, face src/emu/emu.h; docs/emulator.md): tosac-run,
# libtosac-hipemu and the unit tests link it.
EMU_SRC  := $(sort $(wildcard src/emu/*.c))
EMU_ASM  := $(sort $(wildcard src/emu/*.S))
EMU_OBJ  := $(EMU_SRC:%.c=$(BUILD)/obj/%.o) $(EMU_ASM:%.S=$(BUILD)/obj/%.o)
EMU_LIB  := $(BUILD)/libtosac-emu.a
DEPS     += $(EMU_SRC:%.c=$(BUILD)/obj/%.d)
$(EMU_LIB): $(EMU_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

SAMPLE   ?= samples/gelu.mlir

.PHONY: all deps run test asan bench clean format check-isa check-ir
all: $(BUILD)/bin/tosac $(BUILD)/bin/tosac-run

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -c $< -o $@

$(BUILD)/libtosac.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# libtosac.so (docs/library.md): every library object, only the tosac_* API exported (version
# script), a versioned soname. The tosac driver is its first client and finds it through its
# rpath, in build/lib as after `make install`.
TOSAC_VERSION := $(shell sed -n 's/^\#define TOSAC_VERSION "\(.*\)"/\1/p' src/tosac.h)
SO_MAJOR := 0
SO_NAME  := libtosac.so.$(SO_MAJOR)
SO_FILE  := libtosac.so.$(SO_MAJOR).1.0
$(BUILD)/lib/$(SO_FILE): $(LIB_OBJ) src/lib/tosac.map
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=src/lib/tosac.map \
	  -Wl,--no-undefined $(LIB_OBJ) -o $@ $(LDLIBS)
	ln -sf $(SO_FILE) $(BUILD)/lib/$(SO_NAME)
	ln -sf $(SO_NAME) $(BUILD)/lib/libtosac.so

$(BUILD)/bin/tosac: $(BUILD)/obj/src/main.o $(BUILD)/lib/$(SO_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $< -o $@ -L$(BUILD)/lib -ltosac -Wl,-rpath,'$$ORIGIN/../lib'

# Clients of the public API only (tests/lib/NAME.c -> $(BUILD)/bin/test-NAME), linked like the
# driver against libtosac.so.
LIBTEST_BIN := $(patsubst tests/lib/%.c,$(BUILD)/bin/test-%,$(sort $(wildcard tests/lib/*.c)))
all: $(LIBTEST_BIN)
$(BUILD)/bin/test-%: $(BUILD)/obj/tests/lib/%.o $(BUILD)/lib/$(SO_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $< -o $@ -L$(BUILD)/lib -ltosac -lpthread -Wl,-rpath,'$$ORIGIN/../lib'

$(BUILD)/bin/tosac-run: $(RUN_OBJ) $(EMU_LIB) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)

# Installs, through apt, only the Debian packages that are missing.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

run: deps
	$(MAKE) -j2 all
	$(BUILD)/bin/tosac $(SAMPLE) -o $(BUILD)/sample.hipfb -v
	@echo "wrote $(BUILD)/sample.hipfb and $(BUILD)/sample.json"
	clang-offload-bundler-22 -type=o -list -input=$(BUILD)/sample.hipfb

test: deps
	$(MAKE) -j2 all
	TOSAC_BUILD=$(BUILD) tests/run-tests

asan: deps
	$(MAKE) BUILD=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer" OPTFLAGS="-O1 -g" all
	# use_sigaltstack=0: ASan's own per-thread alternate signal stack fails to unmap when
	# LLVM's codegen threads exit ("unable to unmap"); nothing of ours uses it.
	ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  TOSAC_SAN="-fsanitize=address,undefined" TOSAC_BUILD=build-asan tests/run-tests

bench: all
	tests/bench/run $(BUILD)

# The numeric suites: every kernel their tests run goes through the emulator on the targets each
# test names. make test runs them as machine code (the default of tosac-run, libtosac-hipemu and
# tests/oracle/check.py; docs/emulator.md); make check-isa runs only them, as machine code;
# make check-ir runs them on the kernel IR instead (TOSAC_EXEC=ir, TOSAC_HIPEMU_EXEC=ir; tests
# that compile without --embed-ir or assert machine-level checks fail there by design).
NUMERIC_SUITES := oracle elementwise_ops data_movement reduction pool gemm gemm_loop gemv splitk \
  conv_direct conv_gather conv_runs conv_views im2col rdna rdna_conv rdna_splitk quantized f8 \
  control fft_control dynamic host_dynamic transformer models optimize_fold optimize_layout \
  partition weights conformance upstream_tosa migraphx migraphx_ops2 exporters miir gfx908_loop \
  hipemu host python ir_smoke isa isa_gemm
# make check-isa is the seven-target sweep: every graph the suites check through
# tests/oracle/check.py runs on all seven default targets (TOSAC_SWEEP_TARGETS replaces the
# test's own list), and it ends with the graphs matched and the distinct opcodes executed per
# target (tests/oracle/sweep_summary.py over $(BUILD)/isa-sweep.log and isa-sweep-opcodes.txt).
SWEEP_TARGETS := gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
check-isa: deps
	$(MAKE) -j2 all
	rm -f $(BUILD)/isa-sweep.log $(BUILD)/isa-sweep-opcodes.txt
	TOSAC_EXEC=isa TOSAC_HIPEMU_EXEC=isa TOSAC_BUILD=$(BUILD) TOSAC_SWEEP_TARGETS=$(SWEEP_TARGETS) \
	  TOSAC_SWEEP_LOG=$(abspath $(BUILD))/isa-sweep.log \
	  TOSAC_ISA_OPCODES=$(abspath $(BUILD))/isa-sweep-opcodes.txt \
	  tests/run-tests $(NUMERIC_SUITES:%=tests/bats/%.bats); s=$$?; \
	  /usr/bin/python3 tests/oracle/sweep_summary.py $(BUILD)/isa-sweep.log $(BUILD)/isa-sweep-opcodes.txt; exit $$s
check-ir: deps
	$(MAKE) -j2 all
	TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir TOSAC_BUILD=$(BUILD) tests/run-tests $(NUMERIC_SUITES:%=tests/bats/%.bats)

format:
	clang-format-22 -i $$(git ls-files '*.c' '*.h' '*.cpp')

clean:
	rm -rf build build-*

-include $(DEPS)

# Unit-test programs: tests/unit/NAME.c -> $(BUILD)/bin/test-NAME, linked with the emulator
# objects (all but tosac-run's main.c), the emulator library and the library.
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/bin/test-%)
RUN_LIBOBJ := $(filter-out $(BUILD)/obj/tools/tosac-run/main.o,$(RUN_OBJ))
all: $(UNIT_BIN)
-include $(UNIT_SRC:tests/unit/%.c=$(BUILD)/obj/tests/unit/%.d)
$(BUILD)/bin/test-%: $(BUILD)/obj/tests/unit/%.o $(RUN_LIBOBJ) $(EMU_LIB) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)

# CCOB and the kernel cache hash with libmd (libmd0 is already loaded by LLVM's dependencies);
# the manifest's file digests with OpenSSL's libcrypto (SHA instructions, for tens of megabytes
# of weights); tosac-hip-run builds against Debian's HIP 5.2 headers.
DEB_PKGS += libmd-dev libssl-dev libamdhip64-dev
LDLIBS   += -lmd -lcrypto

# tosac-bundle (list / extract / info / verify); its logic without main.c is also linked into
# test-bundle_tool, the fuzz loop.
BTOOL_OBJ    := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard tools/tosac-bundle/*.c)))
BTOOL_LIBOBJ := $(filter-out $(BUILD)/obj/tools/tosac-bundle/main.o,$(BTOOL_OBJ))
all: $(BUILD)/bin/tosac-bundle
$(BUILD)/bin/tosac-bundle: $(BTOOL_OBJ) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)
$(BUILD)/bin/test-bundle_tool: $(BUILD)/obj/tests/unit/bundle_tool.o $(BTOOL_LIBOBJ) $(RUN_LIBOBJ) $(EMU_LIB) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)

# tosac-tune: perf-config search scored by tosac-bundle's quality model (docs/gemm.md).
all: $(BUILD)/bin/tosac-tune
$(BUILD)/bin/tosac-tune: $(BUILD)/obj/tools/tosac-tune/main.o $(BTOOL_LIBOBJ) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)
-include $(BUILD)/obj/tools/tosac-tune/main.d

# tosac-hip-run: a plain C client of the HIP module API (docs/hip-run.md). host.c holds its
# GPU-free logic (no HIP headers), unit-tested by test-hip_host. Built when the HIP headers
# are installed (make deps installs libamdhip64-dev).
HIPRUN_HOST := $(BUILD)/obj/tools/tosac-hip-run/host.o
$(BUILD)/obj/tools/tosac-hip-run/%.o: CFLAGS += -D__HIP_PLATFORM_AMD__
ifneq ($(wildcard /usr/include/hip/hip_runtime_api.h),)
all: $(BUILD)/bin/tosac-hip-run
endif
$(BUILD)/bin/tosac-hip-run: $(BUILD)/obj/tools/tosac-hip-run/main.o $(HIPRUN_HOST) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $^ -o $@ -lamdhip64 -lcjson -lzstd -lz -lmd -lcrypto -lm
$(BUILD)/bin/test-hip_host: $(BUILD)/obj/tests/unit/hip_host.o $(HIPRUN_HOST)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $^ -o $@ -lcjson -lm
-include $(BTOOL_OBJ:.o=.d) $(BUILD)/obj/tools/tosac-hip-run/main.d $(HIPRUN_HOST:.o=.d)

# make install PREFIX=/opt/tosac [DESTDIR=...]: binaries, man pages, the manifest schema.
PREFIX ?= /usr/local
.PHONY: install
install: $(BUILD)/bin/tosac $(BUILD)/bin/tosac-run $(BUILD)/bin/tosac-bundle $(BUILD)/bin/tosac-tune $(BUILD)/lib/$(SO_FILE)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/tosac \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/tosac
	install -m 755 $(filter $(BUILD)/bin/%,$^) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(BUILD)/lib/$(SO_FILE) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SO_FILE) $(DESTDIR)$(PREFIX)/lib/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(PREFIX)/lib/libtosac.so
	install -m 644 include/tosac/tosac.h $(DESTDIR)$(PREFIX)/include/tosac/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(TOSAC_VERSION)|g' src/lib/tosac.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tosac.pc
	if [ -x $(BUILD)/bin/tosac-hip-run ]; then install -m 755 $(BUILD)/bin/tosac-hip-run $(DESTDIR)$(PREFIX)/bin/; fi
	if [ -f $(BUILD)/lib/libtosac-hipemu.so ]; then install -m 755 $(BUILD)/lib/libtosac-hipemu.so $(DESTDIR)$(PREFIX)/lib/; fi
	install -m 644 docs/tosac.1 docs/tosac-run.1 docs/tosac-bundle.1 docs/tosac-tune.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 schema/manifest.schema.json $(DESTDIR)$(PREFIX)/share/tosac/

# Fuzzing (libFuzzer + ASan + UBSan, clang-22): `make fuzz FUZZ_SECONDS=600` runs every target
# in turn for FUZZ_SECONDS each (FUZZ_TARGETS="bundle npy" picks some). Each reads its seeds from
# tests/fuzz/seeds/<target>/ and its regressions from
# tests/fuzz/regress/<target>/; crashes land in $(BUILD)/fuzz/<target>/crash-*: fix them and copy
# them into tests/fuzz/regress/<target>/, replayed by tests/bats/fuzz_regress.bats. The readers
# are compiled with coverage; code generation they pull in comes uninstrumented from libtosac.a.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= parser partitions bundle manifest verify weights npy values codeobj isa
# FUZZ_TIMEOUT: wall seconds per input; raise it on a loaded machine (fuzz-isa's matrix inputs).
FUZZ_TIMEOUT ?= 10
FUZZ_CFLAGS  := -std=c17 -g -O1 -D_GNU_SOURCE -Isrc $(LLVM_CFLAGS) -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_LIBSRC  := $(sort $(wildcard src/frontend/*.c src/support/*.c src/partition/*.c src/bundle/*.c)) src/optimize/eval.c \
                src/codegen/target.c src/codegen/metadata.c tools/tosac-run/values.c \
                tools/tosac-run/manifest_read.c tools/tosac-bundle/codeobj.c \
                tools/tosac-bundle/inspect.c tools/tosac-bundle/graph_check.c tools/tosac-hip-run/host.c
FUZZ_LIBOBJ  := $(FUZZ_LIBSRC:%.c=$(BUILD)/fuzz-obj/%.o)
.PHONY: fuzz fuzz-build
$(BUILD)/fuzz-obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang-22 $(FUZZ_CFLAGS:-fsanitize=fuzzer,%=-fsanitize=fuzzer-no-link,%) -MMD -MP -c $< -o $@
$(BUILD)/fuzz-obj/tools/tosac-hip-run/%.o: FUZZ_CFLAGS += -D__HIP_PLATFORM_AMD__
# The parser target links the frontend alone (no LLVM), as it always has, and the reference
# evaluator fold_control.c folds constant control flow with.
$(BUILD)/bin/fuzz-parser: tests/fuzz/fuzz_parser.c $(filter $(BUILD)/fuzz-obj/src/frontend/% $(BUILD)/fuzz-obj/src/support/% $(BUILD)/fuzz-obj/src/optimize/eval.o,$(FUZZ_LIBOBJ))
	@mkdir -p $(dir $@)
	clang-22 $(FUZZ_CFLAGS) $^ -o $@ -lm
# The machine-code emulator's target instruments the reader, decoder and executors (isa_*.c) and
# the matrix lanes; the rest of the emulator library comes uninstrumented.
FUZZ_EMUOBJ  := $(patsubst %.c,$(BUILD)/fuzz-obj/%.o,$(sort $(wildcard src/emu/isa_*.c)) src/emu/matrix.c)
$(BUILD)/bin/fuzz-isa: $(BUILD)/fuzz-obj/tests/fuzz/fuzz_isa.o $(FUZZ_EMUOBJ) $(FUZZ_LIBOBJ) $(EMU_LIB) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	clang++-22 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $^ -o $@ $(LDLIBS)
$(BUILD)/bin/fuzz-%: $(BUILD)/fuzz-obj/tests/fuzz/fuzz_%.o $(FUZZ_LIBOBJ) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	clang++-22 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $^ -o $@ $(LDLIBS)
.SECONDARY: $(FUZZ_LIBOBJ) $(FUZZ_EMUOBJ) $(FUZZ_TARGETS:%=$(BUILD)/fuzz-obj/tests/fuzz/fuzz_%.o)
fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/bin/fuzz-%)
# The verify target checks manifests against one real bundle (tests/fuzz/data/verify.mlir).
$(BUILD)/fuzz/verify.hipfb: tests/fuzz/data/verify.mlir | $(BUILD)/bin/tosac
	@mkdir -p $(dir $@)
	$(BUILD)/bin/tosac $< --offload-arch=gfx90a,gfx1100 --embed-ir -o $@
fuzz: fuzz-build $(BUILD)/fuzz/verify.hipfb
	@for t in $(FUZZ_TARGETS); do \
	  seeds=tests/fuzz/seeds/$$t; \
	  mkdir -p $(BUILD)/fuzz/$$t/corpus; echo "== fuzz-$$t ($(FUZZ_SECONDS) s)"; \
	  (cd $(BUILD)/fuzz/$$t && TOSAC_FUZZ_BUNDLE=$(abspath $(BUILD))/fuzz/verify.hipfb \
	    $(abspath $(BUILD))/bin/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=$(FUZZ_TIMEOUT) \
	    -rss_limit_mb=2048 -print_final_stats=1 corpus $(abspath $$seeds) \
	    $$(ls -d $(abspath tests/fuzz/regress)/$$t 2>/dev/null)) || exit 1; \
	done
# replay-<target>: the same fuzz target linked with tests/fuzz/replay.c by the normal build (and
# its sanitizers under make asan), so make test replays the regressions without clang's fuzzer.
REPLAY_BIN := $(FUZZ_TARGETS:%=$(BUILD)/bin/replay-%)
all: $(REPLAY_BIN)
$(BUILD)/bin/replay-%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/replay.o $(BTOOL_LIBOBJ) $(RUN_LIBOBJ) $(HIPRUN_HOST) $(EMU_LIB) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)
.SECONDARY: $(FUZZ_TARGETS:%=$(BUILD)/obj/tests/fuzz/fuzz_%.o) $(BUILD)/obj/tests/fuzz/replay.o
-include $(FUZZ_LIBOBJ:.o=.d) $(FUZZ_TARGETS:%=$(BUILD)/obj/tests/fuzz/fuzz_%.d) $(BUILD)/obj/tests/fuzz/replay.d $(FUZZ_TARGETS:%=$(BUILD)/fuzz-obj/tests/fuzz/fuzz_%.d)

# libtosac-hipemu (docs/host.md): the HIP runtime API subset of tosac's host code and
# tosac-hip-run, on the emulator library. Built against Debian's HIP 5.2 headers (the same
# declarations libamdhip64 exports), so programs link against either library unchanged.
HIPEMU_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard tools/hipemu/*.c)))
$(BUILD)/obj/tools/hipemu/%.o: CFLAGS += -D__HIP_PLATFORM_AMD__
ifneq ($(wildcard /usr/include/hip/hip_runtime_api.h),)
all: $(BUILD)/lib/libtosac-hipemu.so
endif
$(BUILD)/lib/libtosac-hipemu.so: $(HIPEMU_OBJ) $(BUILD)/obj/tools/tosac-bundle/codeobj.o $(HIPRUN_HOST) $(EMU_LIB) $(BUILD)/libtosac.a tools/hipemu/hipemu.map
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) -shared -Wl,--version-script=tools/hipemu/hipemu.map -Wl,-soname,libtosac-hipemu.so \
	  $(filter %.o %.a,$^) -o $@ $(LDLIBS)
-include $(HIPEMU_OBJ:.o=.d)

# ---------------------------------------------------------------- libtosac-miir (docs/miopen.md)
# MIOpen's Miir.h interface over libtosac: src/miir/ (+ libtosac.a), its header installed as
# include/tosac/Miir.h with a pkg-config file; tests/miir/miir_client.c is the MIOpen-like
# client that tests/bats/miir.bats runs on libtosac-hipemu.
MIIR_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard src/miir/*.c)))
all: $(BUILD)/lib/libtosac-miir.so $(BUILD)/bin/miir-client
$(BUILD)/lib/libtosac-miir.so: $(MIIR_OBJ) $(BUILD)/libtosac.a src/miir/miir.map
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) -shared -Wl,--version-script=src/miir/miir.map -Wl,-soname,libtosac-miir.so \
	  -Wl,--no-undefined $(filter %.o %.a,$^) -o $@ $(LDLIBS)
$(BUILD)/obj/tests/miir/%.o: CFLAGS += -D__HIP_PLATFORM_AMD__ -Isrc/miir
$(BUILD)/bin/miir-client: $(BUILD)/obj/tests/miir/miir_client.o $(BUILD)/lib/libtosac-miir.so $(BUILD)/lib/libtosac-hipemu.so
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $< -o $@ -L$(BUILD)/lib -ltosac-miir -ltosac-hipemu -lm -lpthread -Wl,-rpath,'$$ORIGIN/../lib'
.PHONY: install-miir
install: install-miir
install-miir: $(BUILD)/lib/libtosac-miir.so
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/tosac
	install -m 755 $(BUILD)/lib/libtosac-miir.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 src/miir/Miir.h $(DESTDIR)$(PREFIX)/include/tosac/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(TOSAC_VERSION)|g' src/miir/tosac-miir.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tosac-miir.pc
# make fuzz-miir FUZZ_SECONDS=N: libFuzzer on the option parser (+ the frontend on its graphs)
$(BUILD)/bin/fuzz-miir: $(BUILD)/fuzz-obj/tests/fuzz/fuzz_miir.o $(BUILD)/fuzz-obj/src/miir/problem.o \
  $(BUILD)/fuzz-obj/src/miir/graph.o $(FUZZ_LIBOBJ) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	clang++-22 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $^ -o $@ $(LDLIBS)
.PHONY: fuzz-miir
fuzz-miir: $(BUILD)/bin/fuzz-miir
	mkdir -p $(BUILD)/fuzz/miir/corpus
	cd $(BUILD)/fuzz/miir && $(abspath $(BUILD))/bin/fuzz-miir -max_total_time=$(FUZZ_SECONDS) \
	  -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 corpus \
	  $(abspath tests/fuzz/seeds/miir)
# replay-miir: the option-string fuzz target with tests/fuzz/replay.c (fuzz_regress.bats)
all: $(BUILD)/bin/replay-miir
$(BUILD)/bin/replay-miir: $(BUILD)/obj/tests/fuzz/fuzz_miir.o $(BUILD)/obj/tests/fuzz/replay.o \
  $(BUILD)/obj/src/miir/problem.o $(BUILD)/obj/src/miir/graph.o $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)
.PHONY: bench-miir
bench: bench-miir
bench-miir: $(BUILD)/bin/miir-client $(BUILD)/bin/tosac
	tests/bench/miir_bench.sh $(BUILD)
-include $(MIIR_OBJ:.o=.d) $(BUILD)/obj/tests/miir/miir_client.d
# ---------------------------------------------------------------- end of libtosac-miir

# ---------------------------------------------------------------- Python module (docs/python.md)
# python/tosac: ctypes over libtosac.so, installed into the Python site directory PYTHON_SITE
# with _paths.py naming the installed library and tosac-run
# (PREFIX=/usr/local: /usr/local/lib/python3.X/dist-packages, on Debian's python3 path; another
# PREFIX keeps the module under it, for PYTHONPATH)
PYTHON_VERSION := $(shell /usr/bin/python3 -c "import sys; print('%d.%d' % sys.version_info[:2])" 2>/dev/null)
PYTHON_SITE ?= $(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages
.PHONY: install-python
install: install-python
install-python:
	install -d $(DESTDIR)$(PYTHON_SITE)/tosac
	install -m 644 python/tosac/__init__.py $(DESTDIR)$(PYTHON_SITE)/tosac/
	printf 'LIBRARY = "%s"\nBINDIR = "%s"\n' $(PREFIX)/lib/libtosac.so.$(SO_MAJOR) $(PREFIX)/bin \
	  > $(DESTDIR)$(PYTHON_SITE)/tosac/_paths.py
# ---------------------------------------------------------------- end of Python module
