// The hostile control-flow files (tests/data/hostile/control-flow, made by
// make_control_flow_hostile.py; spec/values.md section 5): each is loaded and, when loading
// succeeds, run in both engines, and must end with the SessionError kind its name begins with:
// loops that never end or would run past the limit, subgraphs nested too deep or too many,
// branches contradicting the node's declaration, bodies of the wrong arity.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

namespace fs = std::filesystem;

// A zero-filled input for a declaration (unknown extents 1; a bool condition true).
Tensor feed_for(const TensorInfo& info) {
  std::vector<std::int64_t> extents;
  for (const IrDim& d : info.dims) extents.push_back(d.kind == IrDim::Kind::Value ? d.value : 1);
  const DType type = info.element_type == 0 ? DType::F32 : static_cast<DType>(info.element_type);
  Tensor t = Tensor::zeros(type, Shape(std::span<const std::int64_t>(extents)));
  if (type == DType::Bool) t.mutable_data<std::uint8_t>()[0] = 1;
  return t;
}

std::string kind_of(const fs::path& file, EngineKind engine) {
  SessionOptions options;
  options.engine = engine;
  options.intra_op_threads = 2;
  options.max_loop_iterations = 1000;  // the endless loops end here, quickly
  try {
    const Session session = Session::load(file, options);
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (const TensorInfo& info : session.inputs()) feeds.emplace_back(info.name, feed_for(info));
    session.run(feeds);
  } catch (const SessionError& e) {
    return to_string(e.kind());
  } catch (const std::exception& e) {
    return std::string("other: ") + e.what();
  }
  return "no error";
}

TEST(ControlFlowHostile, EachFileEndsWithItsKind) {
  const fs::path dir = fs::path(ONEMODEL_SOURCE_DIR) / "tests/data/hostile/control-flow";
  int files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".onnx") continue;
    const std::string name = entry.path().stem().string();
    const std::string expected = name.substr(0, name.find('-'));
    for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
      EXPECT_EQ(kind_of(entry.path(), engine), expected)
          << name << " in the " << (engine == EngineKind::Reference ? "reference" : "optimized") << " engine";
    }
    ++files;
  }
  EXPECT_EQ(files, 9) << "the generated set has nine files";
}

}  // namespace
}  // namespace onemodel
