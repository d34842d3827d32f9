// lld_shim.cpp: the in-process lld shim (lld has no C API); callers serialise calls (link.c).
#include <lld/Common/Driver.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>

LLD_HAS_DRIVER(elf)

extern "C" int cg_lld_main(int argc, const char **argv, char *err, size_t errsize,
                           int *can_run_again) {
  std::string errors, output;
  llvm::raw_string_ostream err_os(errors), out_os(output);
  lld::Result r = lld::lldMain(llvm::ArrayRef<const char *>(argv, (size_t)argc), out_os, err_os,
                               {{lld::Gnu, &lld::elf::link}});
  err_os.flush();
  if (err && errsize) {
    std::strncpy(err, errors.c_str(), errsize - 1);
    err[errsize - 1] = 0;
  }
  *can_run_again = r.canRunAgain ? 1 : 0;
  return r.retCode;
}
