/* fuzz_manifest.c: libFuzzer target for the manifest readers of the clients: tosac-run
 * (run_manifest_parse) and tosac-hip-run (hr_manifest_parse, then what it computes from an
 * accepted manifest: target choice, buffer addresses, fill plans, stream schedule). */
#include "../../tools/tosac-hip-run/host.h"
#include "../../tools/tosac-run/run.h"
#include "fuzz.h"

static void hip_client(const hr_manifest *m) {
  hr_select_target(m, "gfx90a:sramecc+:xnack-");
  for (int i = 0; i < m->ntargets; i++) {
    const hr_target *t = &m->targets[i];
    uint64_t *addr = calloc((size_t)t->nbuffers + 1, sizeof *addr);
    int nio = (m->ninputs > m->noutputs ? m->ninputs : m->noutputs) + 1;
    uint64_t *io = calloc((size_t)nio, sizeof *io);
    hr_buffer_addresses(t, io, io, 1u << 20, 1u << 24, addr);
    free(io);
    int *stream = calloc((size_t)t->nlaunches + 1, sizeof *stream);
    hr_schedule(t, 4, stream);
    for (int l = 0; l < t->nlaunches; l++) {
      const hr_launch *la = &t->launches[l];
      if (la->kind == HR_FILL)
        hr_plan_fill(la);
      for (int d = 0; d < la->ndeps; d++)
        hr_needs_wait(t, stream, l, d);
    }
    for (int k = 0; k < t->nkernels; k++) {
      uint8_t args[4096];
      char err[400];
      hr_pack_kernargs(&t->kernels[k], addr, t->nbuffers, args, sizeof args, err, sizeof err);
    }
    free(stream);
    free(addr);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  char err[600];
  run_manifest m;
  if (run_manifest_parse(text, &m, err, sizeof err)) {
    for (int i = 0; i < m.ntargets; i++)
      run_manifest_find_target(&m, m.targets[i].processor);
    run_manifest_free(&m);
  }
  /* a manifest of several entry functions: choose one (bundle/entries.c) */
  if (strstr(text, "\"entries\"") && run_manifest_parse_entry(text, "two", &m, err, sizeof err))
    run_manifest_free(&m);
  hr_manifest h;
  if (hr_manifest_parse(text, &h, err, sizeof err)) {
    hip_client(&h);
    hr_manifest_free(&h);
  }
  free(text);
  return 0;
}
