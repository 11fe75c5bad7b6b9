// SPDX-License-Identifier: GPL-2.0
/*
 * Names and descriptions of every CUresult lake/cuda.h defines, for
 * cuGetErrorName and cuGetErrorString: answered locally by lakelib and by
 * the host device from this one table.
 */
#include <lake/port.h>
#include <lake/cu_errors.h>

static const struct {
	CUresult code;
	const char *name;
	const char *text;
} errors[] = {
#define E(code, text) { code, #code, text }
	E(CUDA_SUCCESS, "no error"),
	E(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
	E(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
	E(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
	E(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
	E(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
	E(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "call requires a newer driver"),
	E(CUDA_ERROR_DEVICE_UNAVAILABLE, "device unavailable"),
	E(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
	E(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
	E(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
	E(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
	E(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for the device"),
	E(CUDA_ERROR_INVALID_PTX, "invalid PTX"),
	E(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "unsupported PTX version"),
	E(CUDA_ERROR_INVALID_SOURCE, "invalid kernel source"),
	E(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
	E(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found"),
	E(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed"),
	E(CUDA_ERROR_OPERATING_SYSTEM, "OS call failed"),
	E(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
	E(CUDA_ERROR_ILLEGAL_STATE, "illegal state"),
	E(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
	E(CUDA_ERROR_NOT_READY, "device not ready"),
	E(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
	E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
	E(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"),
	E(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
	E(CUDA_ERROR_ASSERT, "device-side assert triggered"),
	E(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "host memory is already registered"),
	E(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "host memory is not registered"),
	E(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"),
	E(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
	E(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
	E(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
	E(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"),
	E(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "system has an unsupported display driver / CUDA driver combination"),
	E(CUDA_ERROR_TIMEOUT, "timeout"),
	E(CUDA_ERROR_UNKNOWN, "unknown error"),
#undef E
};

CUresult lake_cu_error_str(CUresult error, const char **str, bool name)
{
	unsigned int i;

	if (!str)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		if (errors[i].code == error) {
			*str = name ? errors[i].name : errors[i].text;
			return CUDA_SUCCESS;
		}
	}
	*str = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}
