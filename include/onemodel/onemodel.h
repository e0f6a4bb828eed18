/* The C interface of OneModel (issue 16, docs/api.md "C"): C99, no exception ever crosses it.
 *
 * Every function that can fail returns an onemodel_status; when its last argument `error` is not
 * NULL, a failure also stores there an onemodel_error holding the code and the text
 * "<Kind>: <message>" (the C++ errors' own text, spec/errors.md), which the caller frees with
 * onemodel_error_free. Passing NULL for `error` is allowed: the status alone is returned.
 *
 * A session is immutable once made and may be run from any number of threads at once, as the C++
 * Session (spec/session.md section 1). Objects are freed with their own function; freeing NULL does
 * nothing. Strings the library returns stay valid until their owner is freed. */
#ifndef ONEMODEL_ONEMODEL_H
#define ONEMODEL_ONEMODEL_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define ONEMODEL_C_EXPORT
#else
#define ONEMODEL_C_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ONEMODEL_C_API_VERSION 1
/* The largest rank a tensor may have (include/onemodel/shape.hpp, kMaxRank). */
#define ONEMODEL_MAX_RANK 8

typedef enum onemodel_status {
  ONEMODEL_OK = 0,
  /* The call itself: a NULL where an object is needed, an option out of range, a tensor whose
   * byte size does not match its shape. */
  ONEMODEL_INVALID_ARGUMENT = 1,
  ONEMODEL_OUT_OF_MEMORY = 2,
  ONEMODEL_INTERNAL = 3,
  /* A caller-owned output buffer is too small: the output's shape and byte size are stored in the
   * onemodel_tensor so the caller can retry with a larger one. */
  ONEMODEL_BUFFER_TOO_SMALL = 4,
  /* Model files (spec/errors.md section 1, ModelErrorKind). */
  ONEMODEL_MALFORMED = 10,
  ONEMODEL_INVALID_MODEL_FILE = 11,
  ONEMODEL_UNSUPPORTED_FILE = 12,
  ONEMODEL_EXTERNAL_DATA = 13,
  ONEMODEL_IO = 14,
  /* Sessions and runs (spec/session.md section 5, SessionErrorKind). */
  ONEMODEL_UNSUPPORTED_OPERATOR = 20,
  ONEMODEL_EXACT_MODE_UNAVAILABLE = 21,
  ONEMODEL_INVALID_MODEL = 22,
  ONEMODEL_UNSUPPORTED = 23,
  ONEMODEL_INVALID_INPUT = 24,
  ONEMODEL_DISPOSED = 25,
  ONEMODEL_RESOURCE_EXHAUSTED = 26,
  ONEMODEL_CANCELLED = 27,
  /* Tensors (spec/tensors.md section 1, TensorErrorKind). */
  ONEMODEL_TENSOR_SHAPE = 30,
  ONEMODEL_TENSOR_VIEW = 31,
  ONEMODEL_TENSOR_INDEX = 32,
  ONEMODEL_TENSOR_TYPE = 33,
  ONEMODEL_TENSOR_STALE = 34,
  ONEMODEL_TENSOR_POOL = 35,
  ONEMODEL_TENSOR_OVERRUN = 36
} onemodel_status;

typedef enum onemodel_mode { ONEMODEL_MODE_FAST = 0, ONEMODEL_MODE_EXACT = 1 } onemodel_mode;
typedef enum onemodel_engine { ONEMODEL_ENGINE_OPTIMIZED = 0, ONEMODEL_ENGINE_REFERENCE = 1 } onemodel_engine;
typedef enum onemodel_weights {
  ONEMODEL_WEIGHTS_ORIGINAL = 0,
  ONEMODEL_WEIGHTS_BINARY16 = 1,
  ONEMODEL_WEIGHTS_BFLOAT16 = 2
} onemodel_weights;

typedef struct onemodel_session onemodel_session;
typedef struct onemodel_error onemodel_error;

/* Session options; onemodel_options_init sets the defaults of the C++ SessionOptions. */
typedef struct onemodel_options {
  int mode;                   /* onemodel_mode */
  int engine;                 /* onemodel_engine */
  int threads;                /* 0: one per logical core (at most 256); 1 to 256 otherwise */
  int weights;                /* onemodel_weights */
  int64_t memory_limit_bytes; /* bytes one run may hold; 0 keeps the library's default */
} onemodel_options;

/* A tensor passed in or out. For an input: name, element_type (ONNX TensorProto code: 1 float,
 * 7 int64, ...), rank, shape and data of byte_size bytes, row-major; the library copies it.
 * For an output: name; then either data = NULL (the library allocates the values with malloc:
 * free them with onemodel_free) or data and byte_size a buffer of the caller's; on return
 * element_type, rank, shape and byte_size describe the output and owned_by_library says who
 * owns data. */
typedef struct onemodel_tensor {
  const char* name;
  int32_t element_type;
  size_t rank;
  int64_t shape[ONEMODEL_MAX_RANK];
  void* data;
  size_t byte_size;
  int owned_by_library;
} onemodel_tensor;

/* What a session declares for one input or output. */
typedef struct onemodel_value_info {
  const char* name;      /* valid while the session lives */
  int is_tensor;         /* 0 for sequences, optionals and other values */
  int32_t element_type;  /* ONNX code; 0 when undeclared */
  int64_t rank;          /* -1 when the rank is not declared */
  int64_t shape[ONEMODEL_MAX_RANK];          /* -1 for a symbolic or unknown extent */
  const char* dim_names[ONEMODEL_MAX_RANK];  /* the symbolic name, or NULL */
} onemodel_value_info;

ONEMODEL_C_EXPORT const char* onemodel_version(void);
/* "Malformed", "InvalidInput", ... (the C++ kinds' names; "Ok" for ONEMODEL_OK). */
ONEMODEL_C_EXPORT const char* onemodel_status_name(onemodel_status status);

ONEMODEL_C_EXPORT void onemodel_options_init(onemodel_options* options);

/* A session from a model file (ONNX or the OneModel format) or from bytes in memory (copied
 * where needed; `name` names them in errors). `options` may be NULL for the defaults. */
ONEMODEL_C_EXPORT onemodel_status onemodel_session_create(const char* path, const onemodel_options* options,
                                                          onemodel_session** session, onemodel_error** error);
ONEMODEL_C_EXPORT onemodel_status onemodel_session_create_from_bytes(const void* bytes, size_t size,
                                                                     const char* name,
                                                                     const onemodel_options* options,
                                                                     onemodel_session** session,
                                                                     onemodel_error** error);
ONEMODEL_C_EXPORT void onemodel_session_free(onemodel_session* session);

ONEMODEL_C_EXPORT size_t onemodel_session_input_count(const onemodel_session* session);
ONEMODEL_C_EXPORT size_t onemodel_session_output_count(const onemodel_session* session);
ONEMODEL_C_EXPORT onemodel_status onemodel_session_input_info(const onemodel_session* session, size_t index,
                                                              onemodel_value_info* info, onemodel_error** error);
ONEMODEL_C_EXPORT onemodel_status onemodel_session_output_info(const onemodel_session* session, size_t index,
                                                               onemodel_value_info* info, onemodel_error** error);
/* "AVX-512", "AVX2", "NEON", "scalar", ...; the reference engine says "reference". */
ONEMODEL_C_EXPORT const char* onemodel_session_kernel_path(const onemodel_session* session);

/* Runs the session on the named inputs and fills the named outputs (any subset of the model's,
 * in any order). Thread-safe. On a failure no output is left allocated by the library. */
ONEMODEL_C_EXPORT onemodel_status onemodel_session_run(const onemodel_session* session, const onemodel_tensor* inputs,
                                                       size_t input_count, onemodel_tensor* outputs,
                                                       size_t output_count, onemodel_error** error);

/* Frees output values the library allocated (owned_by_library = 1). */
ONEMODEL_C_EXPORT void onemodel_free(void* data);

ONEMODEL_C_EXPORT onemodel_status onemodel_error_code(const onemodel_error* error);
/* "<Kind>: <message>", and for session errors further lines: "  at node <name>",
 * "  operator <op>" (spec/errors.md section 4). */
ONEMODEL_C_EXPORT const char* onemodel_error_message(const onemodel_error* error);
ONEMODEL_C_EXPORT void onemodel_error_free(onemodel_error* error);

#ifdef __cplusplus
}
#endif

#endif /* ONEMODEL_ONEMODEL_H */
