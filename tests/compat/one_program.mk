# Rules shared by the compat projects made of one host program (host/app.c)
# and one DPU program, included by their Makefiles (run_project.sh copies this
# file beside them).  A project sets DPU_PROGRAM, DPU_SOURCE, DPU_FLAGS and,
# if it needs them, HOST_DEFS.
BUILDDIR ?= bin
HOST_FLAGS := -std=c11 -O2 -Wall -Wextra -Werror `dpu-pkg-config --cflags --libs dpu` $(HOST_DEFS)

.PHONY: all test clean
all: $(BUILDDIR)/host_app $(BUILDDIR)/$(DPU_PROGRAM)

$(BUILDDIR)/host_app: host/app.c
	@mkdir -p $(BUILDDIR)
	$(CC) -o $@ $< $(HOST_FLAGS)

$(BUILDDIR)/$(DPU_PROGRAM): $(DPU_SOURCE)
	@mkdir -p $(BUILDDIR)
	dpu-upmem-dpurte-clang $(DPU_FLAGS) -o $@ $<

test: all
	cd $(BUILDDIR) && ./host_app

clean:
	rm -rf $(BUILDDIR)
