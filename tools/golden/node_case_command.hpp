// `golden --node-cases DIR [--write FILE | --check FILE]` (tools/golden/README.md, "Node cases"):
// every backend node case under DIR in exact mode (node_cases.hpp), printed, written to the
// committed file, or checked against it.
#pragma once

#include <string>

#include "onemodel/session.hpp"

namespace onemodel::golden {

struct NodeCaseCommand {
  std::string dir;
  std::string write;  // write the file here (reference engine only)
  std::string check;  // compare with this file
  std::string only;   // run only cases whose name contains this (no aggregate then)
  bool verbose = false;
  SessionOptions session;
};

// The exit status: 0 when everything ran (and, with check, equals the file), 1 otherwise.
int run_node_case_command(const NodeCaseCommand& command);

}  // namespace onemodel::golden
