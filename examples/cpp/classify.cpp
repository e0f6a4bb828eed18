// The getting-started example in C++ against the installed library: load the sample classifier,
// run one row of four features, print the three class probabilities, the kernel path and the
// inputs.   classify MODEL [fast|exact]
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "onemodel/session.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: classify MODEL [fast|exact]\n");
    return 2;
  }
  try {
    onemodel::SessionOptions options;
    if (argc > 2 && std::string(argv[2]) == "exact") options.mode = onemodel::ExecutionMode::Exact;
    const onemodel::Session session = onemodel::Session::load(argv[1], options);
    const std::vector<float> features = {5.1f, 3.5f, 1.4f, 0.2f};
    const onemodel::Tensor x = onemodel::Tensor::from_values<float>(onemodel::DType::F32, onemodel::Shape{1, 4},
                                                                    std::span<const float>(features));
    const std::vector<onemodel::Tensor> outputs = session.run({{"x", x}});
    const std::span<const float> probs = outputs.at(0).data<float>();
    std::printf("probs: %.4f, %.4f, %.4f\n", probs[0], probs[1], probs[2]);
    std::printf("kernel path: %s\n", session.kernel_path().c_str());
    for (const onemodel::TensorInfo& info : session.inputs()) std::printf("input %s\n", info.name.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "classify: %s\n", e.what());
    return 1;
  }
}
