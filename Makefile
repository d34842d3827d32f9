# tosac build. `make` builds build/bin/{tosac,tosac-run}; see README.md for the other goals.
LLVM_CONFIG ?= llvm-config-22
BUILD       ?= build
CC          ?= gcc
CXX         ?= g++
SAN         ?=

DEB_PKGS := llvm-22-dev lld-22 liblld-22-dev clang-22 clang-tools-22 mlir-22-tools \
            libcjson-dev libzstd-dev libmsgpack-dev bats bats-assert bats-support \
            python3-jsonschema python3-numpy

LLVM_CFLAGS  := $(shell $(LLVM_CONFIG) --cflags 2>/dev/null)
LLVM_LDFLAGS := $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null)
LLVM_LIBS    := $(shell $(LLVM_CONFIG) --libs 2>/dev/null)
LLVM_INC     := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc $(LLVM_CFLAGS) $(SAN)
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++17 -Wall -Wextra -I$(LLVM_INC) -fno-exceptions -fno-rtti $(SAN)
LDLIBS   := $(LLVM_LDFLAGS) -llldELF -llldCommon $(LLVM_LIBS) -lcjson -lmsgpackc -lzstd -lz -lm -lpthread

LIB_SRC  := $(sort $(wildcard src/support/*.c src/frontend/*.c src/partition/*.c src/codegen/*.c src/bundle/*.c))
LIB_CXX  := $(sort $(wildcard src/codegen/*.cpp))
RUN_SRC  := $(sort $(wildcard tools/tosac-run/*.c))
RUN_ASM  := $(sort $(wildcard tools/tosac-run/*.S))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(LIB_CXX:%.cpp=$(BUILD)/obj/%.o)
RUN_OBJ  := $(RUN_SRC:%.c=$(BUILD)/obj/%.o) $(RUN_ASM:%.S=$(BUILD)/obj/%.o)
DEPS     := $(LIB_OBJ:.o=.d) $(RUN_OBJ:.o=.d) $(BUILD)/obj/src/main.d

SAMPLE   ?= samples/gelu.mlir

.PHONY: all deps run test asan bench clean format
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

$(BUILD)/bin/tosac: $(BUILD)/obj/src/main.o $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)

$(BUILD)/bin/tosac-run: $(RUN_OBJ) $(BUILD)/libtosac.a
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
	$(MAKE) BUILD=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer" CFLAGS="-O1 -g" CXXFLAGS="-O1 -g" all
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 TOSAC_BUILD=build-asan tests/run-tests

bench: all
	tests/bench/run $(BUILD)

format:
	clang-format-22 -i $$(git ls-files '*.c' '*.h' '*.cpp')

clean:
	rm -rf build build-*

-include $(DEPS)

# Unit-test programs: tests/unit/NAME.c -> $(BUILD)/bin/test-NAME, linked with the emulator
# objects (all but tosac-run's main.c) and the library.
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/bin/test-%)
RUN_LIBOBJ := $(filter-out $(BUILD)/obj/tools/tosac-run/main.o,$(RUN_OBJ))
all: $(UNIT_BIN)
$(BUILD)/bin/test-%: $(BUILD)/obj/tests/unit/%.o $(RUN_LIBOBJ) $(BUILD)/libtosac.a
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $^ -o $@ $(LDLIBS)
