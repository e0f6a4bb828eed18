#include <gtest/gtest.h>

#include "onemodel/error.hpp"

namespace onemodel {
namespace {

TEST(ModelError, DescribeNamesKindPathOffsetAndInput) {
  ModelError e(ModelErrorKind::InvalidModel, "undefined value 'x'", "m.onnx", 42,
               "ModelProto.graph.node[3].input[0]");
  EXPECT_EQ(e.describe(),
            "InvalidModel: undefined value 'x' (at ModelProto.graph.node[3].input[0], offset 42, in m.onnx)");
  EXPECT_STREQ(e.what(), "InvalidModel: undefined value 'x'");
}

TEST(ModelError, DescribeWithoutLocationHasNoParentheses) {
  ModelError e(ModelErrorKind::Io, "cannot open file");
  EXPECT_EQ(e.describe(), "Io: cannot open file");
}

}  // namespace
}  // namespace onemodel
