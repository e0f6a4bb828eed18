// `onemodel convert [--weights binary16|bfloat16] IN OUT` and `onemodel convert --each LIST
// --output-dir DIR` (docs/command-line.md): any model file to the OneModel format.
#include <exception>
#include <filesystem>
#include <iostream>
#include <ostream>

#include "core/session/compact_weights.hpp"
#include "onemodel/error.hpp"
#include "onemodel/model_format.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/model_list.hpp"
#include "tools/cli/report_error.hpp"
#include "tools/cli/run_commands.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

// Either kind is accepted: load_model_file tells them apart by the first eight bytes. With
// --weights the compactable weights are rounded and marked compact first (spec/session.md
// section 9, spec/format.md section 2.5), exactly as a session with that WeightStorage would.
void convert_one(const std::string& in, const std::string& out, WeightStorage weights) {
  IrModel model = load_model_file(in);
  compact_weights(model, weights);
  write_onemodel_file(model, out);
}

// Line k of LIST goes to DIR/<k>.onemodel; a model that fails is reported and skipped.
int convert_each(const std::string& list_path, const std::string& output_dir, WeightStorage weights) {
  const std::vector<std::string> paths = read_model_list(list_path);
  make_output_dir(output_dir);
  int failed = 0;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    try {
      convert_one(paths[k], (std::filesystem::path(output_dir) / (std::to_string(k) + ".onemodel")).string(), weights);
    } catch (const ModelError&) {
      report_error(std::current_exception(), std::cerr);
      ++failed;
    }
  }
  if (failed > 0) {
    std::cerr << failed << " of " << paths.size() << " models could not be converted\n";
    return kExitModelFile;
  }
  return kExitOk;
}

}  // namespace

int command_convert(const Args& args, std::ostream& out) {
  std::string list_path;
  std::string output_dir;
  std::vector<std::string> files;
  WeightStorage weights = WeightStorage::Original;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (arg == "--weights") {
      if (k + 1 >= args.size()) throw UsageError("convert: --weights needs a value");
      weights = parse_weight_storage("convert", args[++k], false);
    } else if (arg == "--each" || arg == "--output-dir") {
      if (k + 1 >= args.size()) throw UsageError("convert: " + arg + " needs a value");
      (arg == "--each" ? list_path : output_dir) = args[++k];
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw UsageError("convert: unknown option '" + arg + "'");
    } else {
      files.push_back(arg);
    }
  }
  if (!list_path.empty() || !output_dir.empty()) {
    if (list_path.empty() || output_dir.empty() || !files.empty()) {
      throw UsageError("convert: --each LIST and --output-dir DIR go together, without file paths");
    }
    return convert_each(list_path, output_dir, weights);
  }
  if (files.size() != 2) throw UsageError("convert takes two arguments: IN OUT");
  convert_one(files[0], files[1], weights);
  out << "wrote " << files[1] << "\n";
  return kExitOk;
}

}  // namespace onemodel::cli
