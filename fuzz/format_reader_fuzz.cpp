// libFuzzer target: the OneModel format reader (spec/format.md) on arbitrary bytes. A ModelError
// is the only acceptable refusal. A file that reads is checked differentially: written again,
// it reads back with the same structural dump (spec/dump.md), and writing is deterministic
// (spec/format.md section 4: the same model gives the same bytes).
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

using namespace onemodel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ByteView bytes = fuzz::owned_view(data, size);
  const bool magic = is_onemodel_bytes(bytes.span());
  IrModel model;
  try {
    model = read_onemodel_bytes(bytes, "fuzz.onemodel");
  } catch (const ModelError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding("read_onemodel_bytes threw something other than ModelError", e.what());
  }
  fuzz::check(magic, "a file without the magic was read");  // spec/format.md section 1.1
  const std::string problem = testing::resolution_problem(model.graph);
  fuzz::check(problem.empty(), "resolution results do not hold together", problem);
  const std::string dump = dump_model(model);

  std::vector<std::byte> file;
  IrModel back;
  try {
    file = write_onemodel_bytes(model);
    back = read_onemodel_bytes(ByteView{file.data(), file.size(), nullptr}, "fuzz.rewritten");
  } catch (const ModelError& e) {
    fuzz::finding("a model that was read could not be written and read back", e.describe());
  } catch (const std::exception& e) {
    fuzz::finding("write/read threw something other than ModelError", e.what());
  }
  const std::string back_dump = dump_model(back);
  fuzz::check(back_dump == dump, "a model read, written and read again dumps differently",
              "--- read\n" + dump + "--- rewritten\n" + back_dump);
  fuzz::check(write_onemodel_bytes(back) == file, "writing the same model twice gave different bytes");
  return 0;
}
