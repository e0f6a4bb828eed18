// `onemodel dump` (docs/command-line.md, spec/dump.md): one model, several, or a list of them in
// one process (the batch form used by tools/compare_onnx_dump.py).
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <string>

#include "onemodel/error.hpp"
#include "onemodel/model_dump.hpp"
#include "onemodel/model_format.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/exit_status.hpp"
#include "tools/cli/model_list.hpp"
#include "tools/cli/report_error.hpp"
#include "tools/cli/usage_error.hpp"

namespace onemodel::cli {
namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw ModelError(ModelErrorKind::Io, "cannot write the dump", path.string());
}

int dump_each(const std::string& list_path, const std::string& output_dir) {
  const std::vector<std::string> paths = read_model_list(list_path);
  make_output_dir(output_dir);
  int failed = 0;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    std::string text;
    try {
      text = dump_model(load_model_file(paths[k]));
    } catch (const ModelError& e) {
      // The failure is the model's dump, so a comparison shows it next to the other side's text.
      text = "error " + std::string(to_string(e.kind())) + ": " + e.message() + "\n";
      report_error(std::current_exception(), std::cerr);
      ++failed;
    }
    write_text(std::filesystem::path(output_dir) / (std::to_string(k) + ".txt"), text);
  }
  if (failed > 0) {
    std::cerr << failed << " of " << paths.size() << " models could not be read\n";
    return kExitModelFile;
  }
  return kExitOk;
}

}  // namespace

int command_dump(const Args& args, std::ostream& out) {
  std::string list_path;
  std::string output_dir;
  std::vector<std::string> models;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& arg = args[k];
    if (arg == "--each" || arg == "--output-dir") {
      if (k + 1 >= args.size()) throw UsageError("dump: " + arg + " needs a value");
      (arg == "--each" ? list_path : output_dir) = args[++k];
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw UsageError("dump: unknown option '" + arg + "'");
    } else {
      models.push_back(arg);
    }
  }
  if (!list_path.empty() || !output_dir.empty()) {
    if (list_path.empty() || output_dir.empty() || !models.empty()) {
      throw UsageError("dump: --each LIST and --output-dir DIR go together, without model paths");
    }
    return dump_each(list_path, output_dir);
  }
  if (models.empty()) throw UsageError("dump needs at least one model path");
  if (models.size() == 1) {
    out << dump_model(load_model_file(models[0]));
    return kExitOk;
  }
  int status = kExitOk;
  for (const std::string& model : models) {
    out << "==> " << model << " <==\n";
    try {
      out << dump_model(load_model_file(model));
    } catch (const ModelError&) {
      out.flush();
      status = report_error(std::current_exception(), std::cerr);
    }
  }
  return status;
}

}  // namespace onemodel::cli
