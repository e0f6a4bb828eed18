// The list file of the batch forms (`dump --each`, `convert --each`): one model path a line,
// empty lines skipped. Throws ModelError(Io).
#pragma once

#include <string>
#include <vector>

namespace onemodel::cli {

std::vector<std::string> read_model_list(const std::string& list_path);
// Creates the folder (and its parents) if needed. Throws ModelError(Io).
void make_output_dir(const std::string& dir);

}  // namespace onemodel::cli
