/* fuzz_codeobj.c: libFuzzer target for the AMDGPU code-object readers: the ELF header and
 * dynamic symbols (tosac-bundle) and the metadata note (msgpack, cg_read_metadata), for every
 * kernel symbol found. */
#include "../../tools/tosac-bundle/codeobj.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* ELF readers may assume 8-byte alignment of the file start, as mmap and malloc give. */
  uint8_t *d = malloc(size ? size : 1);
  memcpy(d, data, size);
  char err[600];
  tb_elf e;
  tb_elf_header(d, size, &e, err, sizeof err);
  tb_symbols s = {0};
  if (tb_elf_dynsyms(d, size, &s, err, sizeof err)) {
    for (int i = 0; i < s.count && i < 16; i++) {
      cg_kernel_info k;
      if (tb_kernel_meta(d, size, s.names[i], &k, err, sizeof err))
        tb_kernel_meta_free(&k);
    }
    tb_has_symbol(&s, "main");
    tb_symbols_free(&s);
  }
  cg_result r = {0};
  cg_read_metadata(d, size, &r, err, sizeof err);
  cg_result_free(&r);
  free(d);
  return 0;
}
