# Rules shared by the compat projects made of one host program (host/app.c by default)
# and one DPU program, included by their Makefiles (run_project.sh copies this
# file beside them).  A project sets DPU_PROGRAM, DPU_SOURCE, DPU_FLAGS and,
# if it needs them, HOST_DEFS (a C++ host: HOST_SOURCE, HOST_COMPILER, HOST_STD).
BUILDDIR ?= bin
HOST_SOURCE ?= host/app.c
HOST_COMPILER ?= $(CC)
HOST_STD ?= -std=c11
HOST_FLAGS := $(HOST_STD) -O2 -Wall -Wextra -Werror `dpu-pkg-config --cflags --libs dpu` $(HOST_DEFS)

.PHONY: all test clean
all: $(BUILDDIR)/host_app $(BUILDDIR)/$(DPU_PROGRAM)

$(BUILDDIR)/host_app: $(HOST_SOURCE)
	@mkdir -p $(BUILDDIR)
	$(HOST_COMPILER) -o $@ $< $(HOST_FLAGS)

$(BUILDDIR)/$(DPU_PROGRAM): $(DPU_SOURCE)
	@mkdir -p $(BUILDDIR)
	dpu-upmem-dpurte-clang $(DPU_FLAGS) -o $@ $<

test: all
	cd $(BUILDDIR) && ./host_app

clean:
	rm -rf $(BUILDDIR)
