/* Miir.h: libtosac-miir, the convolution interface MIOpen uses
 * (docs/miopen.md).
 *
 * The names, signatures, status values and the bare-pointer kernel ABI (version
 * 6) are those of the public Miir.h of rocMLIR, so MIOpen builds and links
 * against this library unchanged: MIOpen describes one convolution problem as
 * an option string ("--operation conv2d --arch ...
 * --kernel_id K ..."), asks for the kernel count, and for each kernel id
 * creates a handle, lowers it to a code object and launches its one kernel with
 * global/local sizes from miirGetExecutionDims. Every kernel of a problem takes
 * the same four pointers, in this order:
 *
 *   struct { void *filter, *input, *output, *workspace; }
 *
 * where input is the x-shaped tensor and output the y-shaped one for every
 * operation (backward data writes input, backward weight writes filter).
 * workspace is miirGetWorkspaceSize bytes (NULL when 0).
 *
 * tosac extensions (not in rocMLIR's header) are marked as such. */
#ifndef MLIR_C_MIIR_H
#define MLIR_C_MIIR_H

#include <stddef.h>
#include <stdint.h>

/* Version 6: kernels take bare pointers. */
#define MIIR_VERSION_FLAT 6

enum MiirStatus { MIIR_SUCCESS = 0, MIIR_INVALID_PARAM, MIIR_INVALID_MODULE, MIIR_BUILD_FAILURE };
typedef enum MiirStatus MiirStatus;

typedef void *MiirHandle;

/* The memref descriptor of ABI versions before 6; kept for source
 * compatibility. */
struct StridedMemRef5D {
  void *basePtr;
  void *data;
  int32_t offset;
  int32_t sizes[5];
  int32_t strides[5];
};

#if defined(__cplusplus)
#define MIIR_EXTERN extern "C"
#else
#define MIIR_EXTERN extern
#endif
#if defined(TOSAC_MIIR_BUILDING)
#define MIIR_API MIIR_EXTERN __attribute__((visibility("default")))
#else
#define MIIR_API MIIR_EXTERN
#endif

/* Parse the options and compile the problem for the one target of --arch. NULL
 * when the options are invalid or the problem cannot be compiled:
 * tosac_miir_error() says why. */
MIIR_API MiirHandle miirCreateHandle(const char *options);
/* Kernels of the problem (the same for every --kernel_id); -1 for a NULL
 * handle. */
MIIR_API int miirGetKernelCount(MiirHandle handle);
/* Workspace bytes every kernel of the problem shares; 0 for a NULL handle. */
MIIR_API int miirGetWorkspaceSize(MiirHandle handle);
/* MIIR_SUCCESS when the problem (and its --perf_config, if given) is
 * applicable; afterwards miirGetExecutionDims answers for kernel --kernel_id.
 */
MIIR_API MiirStatus miirLowerTuningParams(MiirHandle handle);
/* Build the code object of kernel --kernel_id (named --kernel_name).
 * MIIR_INVALID_PARAM when the id is out of range. */
MIIR_API MiirStatus miirLowerBin(MiirHandle handle);
/* The code object, in two calls: buffer NULL sets *size; then the caller's
 * buffer of *size bytes receives it. */
MIIR_API MiirStatus miirBufferGet(MiirHandle handle, char *buffer, size_t *size);
/* Work-items in total (1-D) and per work-group of kernel --kernel_id. */
MIIR_API MiirStatus miirGetExecutionDims(MiirHandle handle, size_t *global_size,
                                         size_t *local_size);
MIIR_API MiirStatus miirDestroyHandle(MiirHandle handle);

/* tosac extension: the message of the last failure of a miir call on this
 * thread ("" when the last call succeeded). */
MIIR_API const char *tosac_miir_error(void);

#endif
