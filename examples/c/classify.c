/* The getting-started example in C99 (include/onemodel/onemodel.h): load the sample classifier,
 * run one row, print the probabilities; every error printed as "<Kind>: <message>".
 *   classify_c MODEL [fast|exact] */
#include <stdio.h>
#include <string.h>

#include "onemodel/onemodel.h"

int main(int argc, char** argv) {
  onemodel_options options;
  onemodel_session* session = NULL;
  onemodel_error* error = NULL;
  onemodel_tensor in, out;
  const float features[4] = {5.1f, 3.5f, 1.4f, 0.2f};
  float probs[3];
  if (argc < 2) {
    fprintf(stderr, "usage: classify_c MODEL [fast|exact]\n");
    return 2;
  }
  onemodel_options_init(&options);
  if (argc > 2 && strcmp(argv[2], "exact") == 0) options.mode = ONEMODEL_MODE_EXACT;
  if (onemodel_session_create(argv[1], &options, &session, &error) != ONEMODEL_OK) {
    fprintf(stderr, "%s\n", onemodel_error_message(error));
    onemodel_error_free(error);
    return 1;
  }
  memset(&in, 0, sizeof in);
  in.name = "x";
  in.element_type = 1;
  in.rank = 2;
  in.shape[0] = 1;
  in.shape[1] = 4;
  in.data = (void*)features;
  in.byte_size = sizeof features;
  memset(&out, 0, sizeof out);
  out.name = "probs";
  out.data = probs;
  out.byte_size = sizeof probs;
  if (onemodel_session_run(session, &in, 1, &out, 1, &error) != ONEMODEL_OK) {
    fprintf(stderr, "%s\n", onemodel_error_message(error));
    onemodel_error_free(error);
    onemodel_session_free(session);
    return 1;
  }
  printf("probs: %.4f, %.4f, %.4f\n", probs[0], probs[1], probs[2]);
  printf("kernel path: %s\n", onemodel_session_kernel_path(session));
  onemodel_session_free(session);
  return 0;
}
