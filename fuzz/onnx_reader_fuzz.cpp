// libFuzzer target: the ONNX importer (spec/onnx-import.md) on arbitrary bytes. A ModelError is
// the only acceptable refusal; any other exception, crash, sanitizer report or leak is a finding.
// A model that imports is checked further: its resolution results hold together (section 4),
// and, differentially, it converts to the OneModel format and reads back with the same
// structural dump (spec/format.md: a converted model dumps to the same text, spec/dump.md).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "tests/support/reader_invariants.hpp"
#include "onemodel/error.hpp"
#include "onemodel/model_dump.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/onnx_import.hpp"

using namespace onemodel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView bytes = fuzz::owned_view(data, size);
  IrModel model;
  try {
    model = import_onnx_bytes(bytes, "fuzz.onnx");
  } catch (const ModelError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding("import_onnx_bytes threw something other than ModelError", e.what());
  }
  const std::string problem = testing::resolution_problem(model.graph);
  fuzz::check(problem.empty(), "resolution results do not hold together", problem);

  const bool unwritable = testing::model_has_unwritable_none(model);
  std::vector<std::byte> file;
  try {
    file = write_onemodel_bytes(model);
  } catch (const ModelError& e) {
    if (unwritable && e.kind() == ModelErrorKind::Unsupported) return 0;
    fuzz::finding("an imported model could not be written in the OneModel format", e.describe());
  } catch (const std::exception& e) {
    fuzz::finding("write_onemodel_bytes threw something other than ModelError", e.what());
  }
  fuzz::check(!unwritable, "a type the format cannot encode was written");
  const bool too_deep = testing::format_nesting(model) > 64;
  IrModel back;
  try {
    back = read_onemodel_bytes(ByteView{file.data(), file.size(), nullptr}, "fuzz.onemodel");
  } catch (const ModelError& e) {
    if (too_deep && e.kind() == ModelErrorKind::Unsupported) return 0;
    fuzz::finding("an imported model, written in the OneModel format, does not read back", e.describe());
  } catch (const std::exception& e) {
    fuzz::finding("read_onemodel_bytes threw something other than ModelError", e.what());
  }
  fuzz::check(!too_deep, "the format reader accepted more than 64 levels of nesting");
  const std::string dump = dump_model(testing::as_converted(model));
  const std::string back_dump = dump_model(back);
  fuzz::check(back_dump == dump, "ONNX import and its OneModel round trip dump differently",
              "--- onnx\n" + dump + "--- onemodel\n" + back_dump);
  const std::string back_problem = testing::resolution_problem(back.graph);
  fuzz::check(back_problem.empty(), "resolution results of the read-back model do not hold together", back_problem);
  return 0;
}
