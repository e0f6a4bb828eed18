/* The C interface (include/onemodel/onemodel.h) tested from C99: sessions, metadata, runs with
 * library-allocated and caller-owned outputs, every error path with its status and text, and
 * concurrent runs from several threads. Expected values: the classifier's probabilities as ONNX
 * Runtime 1.31.1 computes them (0.232286, 0.28132826, 0.4863858 for x = 5.1 3.5 1.4 0.2), and
 * the error kinds and texts of spec/errors.md.
 *
 *   c_api_test SAMPLES_DIR      (models/samples) */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onemodel/onemodel.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                     \
  do {                                                                  \
    ++checks;                                                           \
    if (!(cond)) {                                                      \
      ++failures;                                                       \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                   \
  } while (0)

static char samples[4096];
static const float kExpected[3] = {0.232286f, 0.28132826f, 0.4863858f};
static const float kX[4] = {5.1f, 3.5f, 1.4f, 0.2f};

static const char* sample(const char* name) {
  static char path[4200];
  snprintf(path, sizeof path, "%s/%s", samples, name);
  return path;
}

static int starts_with(const char* text, const char* prefix) { return strncmp(text, prefix, strlen(prefix)) == 0; }

static onemodel_tensor input_x(const float* values, int64_t rows) {
  onemodel_tensor t;
  memset(&t, 0, sizeof t);
  t.name = "x";
  t.element_type = 1; /* float */
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = 4;
  t.data = (void*)values;
  t.byte_size = (size_t)rows * 4 * sizeof(float);
  return t;
}

static onemodel_session* classifier(int mode) {
  onemodel_options o;
  onemodel_options_init(&o);
  o.mode = mode;
  onemodel_session* s = NULL;
  onemodel_error* e = NULL;
  onemodel_status st = onemodel_session_create(sample("classifier.onnx"), &o, &s, &e);
  CHECK(st == ONEMODEL_OK && s != NULL && e == NULL);
  if (e != NULL) fprintf(stderr, "%s\n", onemodel_error_message(e));
  onemodel_error_free(e);
  return s;
}

static void test_names_and_options(void) {
  onemodel_options o;
  CHECK(strcmp(onemodel_version(), "0.2.0") == 0);
  CHECK(strcmp(onemodel_status_name(ONEMODEL_OK), "Ok") == 0);
  CHECK(strcmp(onemodel_status_name(ONEMODEL_INVALID_INPUT), "InvalidInput") == 0);
  CHECK(strcmp(onemodel_status_name(ONEMODEL_MALFORMED), "Malformed") == 0);
  CHECK(strcmp(onemodel_status_name((onemodel_status)999), "Unknown") == 0);
  memset(&o, 0x7f, sizeof o);
  onemodel_options_init(&o);
  CHECK(o.mode == ONEMODEL_MODE_FAST && o.engine == ONEMODEL_ENGINE_OPTIMIZED && o.threads == 0);
  CHECK(o.weights == ONEMODEL_WEIGHTS_ORIGINAL && o.memory_limit_bytes == 0);
  onemodel_options_init(NULL); /* allowed, does nothing */
}

static void test_metadata(void) {
  onemodel_session* s = classifier(ONEMODEL_MODE_FAST);
  onemodel_value_info info;
  onemodel_error* e = NULL;
  if (s == NULL) return;
  CHECK(onemodel_session_input_count(s) == 1);
  CHECK(onemodel_session_output_count(s) == 1);
  CHECK(onemodel_session_input_info(s, 0, &info, &e) == ONEMODEL_OK);
  CHECK(strcmp(info.name, "x") == 0 && info.is_tensor == 1 && info.element_type == 1 && info.rank == 2);
  CHECK(info.shape[0] == -1 && info.dim_names[0] != NULL && strcmp(info.dim_names[0], "batch") == 0);
  CHECK(info.shape[1] == 4 && info.dim_names[1] == NULL);
  CHECK(onemodel_session_output_info(s, 0, &info, &e) == ONEMODEL_OK);
  CHECK(strcmp(info.name, "probs") == 0 && info.rank == 2 && info.shape[1] == 3);
  CHECK(onemodel_session_output_info(s, 1, &info, &e) == ONEMODEL_INVALID_ARGUMENT);
  CHECK(e != NULL && onemodel_error_code(e) == ONEMODEL_INVALID_ARGUMENT);
  CHECK(e != NULL && strstr(onemodel_error_message(e), "InvalidArgument: output index 1 is not below the count 1"));
  onemodel_error_free(e);
  CHECK(strlen(onemodel_session_kernel_path(s)) > 0);
  onemodel_session_free(s);
  onemodel_session_free(NULL);
}

static void test_runs(int mode) {
  onemodel_session* s = classifier(mode);
  onemodel_tensor in = input_x(kX, 1), out;
  onemodel_error* e = NULL;
  float mine[3] = {-1, -1, -1};
  float small[2];
  int k;
  if (s == NULL) return;
  /* Library-allocated output. */
  memset(&out, 0, sizeof out);
  out.name = "probs";
  CHECK(onemodel_session_run(s, &in, 1, &out, 1, &e) == ONEMODEL_OK && e == NULL);
  CHECK(out.owned_by_library == 1 && out.element_type == 1 && out.rank == 2 && out.shape[0] == 1 && out.shape[1] == 3);
  CHECK(out.byte_size == 3 * sizeof(float));
  for (k = 0; k < 3; ++k) CHECK(fabsf(((float*)out.data)[k] - kExpected[k]) <= 1e-6f);
  /* Caller-owned output: the same bits. */
  {
    onemodel_tensor own;
    memset(&own, 0, sizeof own);
    own.name = "probs";
    own.data = mine;
    own.byte_size = sizeof mine;
    CHECK(onemodel_session_run(s, &in, 1, &own, 1, NULL) == ONEMODEL_OK);
    CHECK(own.owned_by_library == 0 && own.data == mine && own.byte_size == sizeof mine);
    CHECK(memcmp(mine, out.data, sizeof mine) == 0);
    /* Too small: the status, the needed size and shape, the text. */
    own.data = small;
    own.byte_size = sizeof small;
    CHECK(onemodel_session_run(s, &in, 1, &own, 1, &e) == ONEMODEL_BUFFER_TOO_SMALL);
    CHECK(own.byte_size == 12 && own.rank == 2 && own.shape[1] == 3 && own.owned_by_library == 0);
    CHECK(e != NULL && starts_with(onemodel_error_message(e), "BufferTooSmall: output 'probs' needs 12 bytes"));
    onemodel_error_free(e);
    e = NULL;
  }
  onemodel_free(out.data);
  onemodel_session_free(s);
}

/* `pe` is read here, after the call in the first argument has run (C leaves the order of
 * argument evaluation open, so the error object itself cannot be passed). */
static void expect_error(onemodel_status got, onemodel_error** pe, onemodel_status want, const char* prefix) {
  onemodel_error* e = *pe;
  *pe = NULL;
  CHECK(got == want);
  CHECK(e != NULL);
  if (e == NULL) return;
  CHECK(onemodel_error_code(e) == want);
  if (!starts_with(onemodel_error_message(e), prefix)) {
    ++failures;
    fprintf(stderr, "message '%s' does not start with '%s'\n", onemodel_error_message(e), prefix);
  }
  onemodel_error_free(e);
}

static void test_errors(void) {
  onemodel_session* s = NULL;
  onemodel_error* e = NULL;
  onemodel_options o;
  onemodel_tensor in, out;
  static const char garbage[] = "not a model at all";
  /* Creation. */
  expect_error(onemodel_session_create(sample("classifier.onnx"), NULL, NULL, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: session must not be NULL");
  e = NULL;
  expect_error(onemodel_session_create(NULL, NULL, &s, &e), &e, ONEMODEL_INVALID_ARGUMENT, "InvalidArgument: path");
  CHECK(s == NULL);
  e = NULL;
  expect_error(onemodel_session_create(sample("no-such.onnx"), NULL, &s, &e), &e, ONEMODEL_IO, "Io: cannot open file");
  CHECK(s == NULL);
  e = NULL;
  expect_error(onemodel_session_create(sample("classifier_x.npy"), NULL, &s, &e), &e, ONEMODEL_MALFORMED, "Malformed: ");
  e = NULL;
  expect_error(onemodel_session_create_from_bytes(garbage, sizeof garbage, "garbage", NULL, &s, &e), &e,
               ONEMODEL_MALFORMED, "Malformed: ");
  e = NULL;
  expect_error(onemodel_session_create_from_bytes(NULL, 10, "x", NULL, &s, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: bytes is NULL");
  onemodel_options_init(&o);
  o.mode = 7;
  e = NULL;
  expect_error(onemodel_session_create(sample("classifier.onnx"), &o, &s, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: options.mode 7");
  onemodel_options_init(&o);
  o.threads = 257;
  e = NULL;
  expect_error(onemodel_session_create(sample("classifier.onnx"), &o, &s, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: options.threads 257");
  onemodel_options_init(&o);
  o.memory_limit_bytes = -1;
  e = NULL;
  expect_error(onemodel_session_create(sample("classifier.onnx"), &o, &s, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: options.memory_limit_bytes -1");
  /* Without an error object the status alone comes back. */
  CHECK(onemodel_session_create(sample("no-such.onnx"), NULL, &s, NULL) == ONEMODEL_IO);

  /* Runs. */
  s = classifier(ONEMODEL_MODE_FAST);
  if (s == NULL) return;
  memset(&out, 0, sizeof out);
  out.name = "probs";
  in = input_x(kX, 1);
  in.name = "y";
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_INPUT, "InvalidInput: ");
  CHECK(out.data == NULL && out.owned_by_library == 0);
  in = input_x(kX, 1);
  in.byte_size = 12;
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: inputs[0] ('x'): byte_size 12 does not match the shape (4 elements of 4 bytes)");
  in = input_x(kX, 1);
  in.element_type = 99;
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: inputs[0] ('x'): element type 99");
  in = input_x(kX, 1);
  in.rank = 9;
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: inputs[0] ('x'): rank 9 is above 8");
  in = input_x(kX, 1);
  in.shape[1] = -4;
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: inputs[0] ('x'): extent -4 is negative");
  in = input_x(kX, 1);
  in.element_type = 6; /* int32 into a float input */
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_INPUT, "InvalidInput: ");
  in = input_x(kX, 1);
  in.shape[1] = 2;
  in.byte_size = 8;
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_INPUT, "InvalidInput: ");
  in = input_x(kX, 1);
  in.name = NULL;
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: inputs[0].name is NULL");
  in = input_x(kX, 1);
  out.name = "no-such-output";
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_INPUT, "InvalidInput: ");
  out.name = NULL;
  e = NULL;
  expect_error(onemodel_session_run(s, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: outputs[0].name is NULL");
  e = NULL;
  expect_error(onemodel_session_run(s, NULL, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT, "InvalidArgument: inputs");
  e = NULL;
  expect_error(onemodel_session_run(NULL, &in, 1, &out, 1, &e), &e, ONEMODEL_INVALID_ARGUMENT,
               "InvalidArgument: session");
  e = NULL;
  expect_error(onemodel_session_run(s, NULL, 0, &out, 0, &e), &e, ONEMODEL_INVALID_INPUT, "InvalidInput: ");
  onemodel_session_free(s);
}

/* Concurrent runs: every thread gets the one-thread bits. */
typedef struct {
  onemodel_session* session;
  float result[3];
  onemodel_status status;
} job;

static void* run_job(void* arg) {
  job* j = (job*)arg;
  int r;
  for (r = 0; r < 200; ++r) {
    onemodel_tensor in = input_x(kX, 1), out;
    memset(&out, 0, sizeof out);
    out.name = "probs";
    out.data = j->result;
    out.byte_size = sizeof j->result;
    j->status = onemodel_session_run(j->session, &in, 1, &out, 1, NULL);
    if (j->status != ONEMODEL_OK) break;
  }
  return NULL;
}

static void test_threads(void) {
  onemodel_session* s = classifier(ONEMODEL_MODE_EXACT);
  job jobs[4];
  pthread_t threads[4];
  int k;
  if (s == NULL) return;
  for (k = 0; k < 4; ++k) {
    jobs[k].session = s;
    jobs[k].status = ONEMODEL_INTERNAL;
    pthread_create(&threads[k], NULL, run_job, &jobs[k]);
  }
  for (k = 0; k < 4; ++k) pthread_join(threads[k], NULL);
  for (k = 0; k < 4; ++k) {
    CHECK(jobs[k].status == ONEMODEL_OK);
    CHECK(memcmp(jobs[k].result, jobs[0].result, sizeof jobs[0].result) == 0);
    CHECK(fabsf(jobs[k].result[2] - kExpected[2]) <= 1e-6f);
  }
  onemodel_session_free(s);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_api_test SAMPLES_DIR\n");
    return 2;
  }
  snprintf(samples, sizeof samples, "%s", argv[1]);
  test_names_and_options();
  test_metadata();
  test_runs(ONEMODEL_MODE_FAST);
  test_runs(ONEMODEL_MODE_EXACT);
  test_errors();
  test_threads();
  printf("c_api_test: %d checks, %d failed\n", checks, failures);
  return failures == 0 && checks > 100 ? 0 : 1;
}
