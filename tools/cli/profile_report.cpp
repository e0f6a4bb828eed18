#include "tools/cli/profile_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "tools/cli/escaped_name.hpp"

namespace onemodel::cli {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string padded(const std::string& text, std::size_t width, bool right) {
  if (text.size() >= width) return text;
  const std::string pad(width - text.size(), ' ');
  return right ? pad + text : text + pad;
}

// The kind column: an override that handed any call to its reference kernel says so.
std::string kind_label(const ProfiledNode& node, bool fell_back) {
  std::string kind = to_string(node.kind);
  if (fell_back) kind.append("(fallback)");
  return kind;
}

std::string name_label(const std::string& name) { return name.empty() ? std::string("-") : escaped_name(name); }

// JSON string contents: escaped_name() leaves printable ASCII only, so quoting \ and " suffices.
std::string json_text(const std::string& ascii) {
  std::string text;
  for (char c : ascii) {
    if (c == '"' || c == '\\') text.push_back('\\');
    text.push_back(c);
  }
  return text;
}

struct NodeTotals {
  std::vector<std::int64_t> durations;
  std::int64_t total = 0;
  bool fell_back = false;
};

}  // namespace

double median_ns(std::vector<std::int64_t>& durations) {
  if (durations.empty()) return 0;
  std::sort(durations.begin(), durations.end());
  const std::size_t n = durations.size();
  if (n % 2 == 1) return static_cast<double>(durations[n / 2]);
  return (static_cast<double>(durations[n / 2 - 1]) + static_cast<double>(durations[n / 2])) / 2;
}

void print_profile_tables(const RunProfile& profile, std::ostream& out) {
  const std::vector<ProfiledNode>& nodes = profile.nodes();
  std::vector<NodeTotals> totals(nodes.size());
  std::int64_t all = 0;
  for (const NodeTiming& timing : profile.timings()) {
    NodeTotals& node = totals[timing.node];
    node.durations.push_back(timing.duration_ns);
    node.total += timing.duration_ns;
    node.fell_back = node.fell_back || timing.fell_back;
    all += timing.duration_ns;
  }
  const auto share = [all](std::int64_t part) {
    return all > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(all) : 0.0;
  };
  const auto header = [&out](const std::vector<std::pair<std::string, std::size_t>>& columns) {
    for (const auto& [title, width] : columns) {
      out << (width == 0 ? title : padded(title, width, true)) << (width == 0 ? "" : "  ");
    }
    out << "\n";
  };
  out << "nodes (in run order; times in microseconds)\n";
  header({{"#", 5}, {"share%", 7}, {"calls", 6}, {"total_us", 12}, {"mean_us", 10}, {"median_us", 10},
          {"kind", 9}, {"path", 9}, {"type", 20}, {"name", 0}});
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    NodeTotals& node = totals[k];
    const std::size_t calls = node.durations.size();
    const double mean = calls > 0 ? static_cast<double>(node.total) / static_cast<double>(calls) : 0.0;
    const double median = median_ns(node.durations);
    out << padded(std::to_string(k), 5, true) << "  " << padded(fixed(share(node.total), 2), 7, true) << "  "
        << padded(std::to_string(calls), 6, true) << "  "
        << padded(fixed(static_cast<double>(node.total) / 1000.0, 2), 12, true) << "  "
        << padded(fixed(mean / 1000.0, 2), 10, true) << "  " << padded(fixed(median / 1000.0, 2), 10, true) << "  "
        << padded(kind_label(nodes[k], node.fell_back), 9, true) << "  " << padded(nodes[k].kernel_path, 9, true)
        << "  " << padded(escaped_name(nodes[k].op_type), 20, true) << "  " << name_label(nodes[k].name) << "\n";
  }

  // Per operator type and kind: the sums of the node rows, the median over all their calls.
  struct TypeTotals {
    std::size_t nodes = 0;
    std::vector<std::int64_t> durations;
    std::int64_t total = 0;
  };
  std::map<std::pair<std::string, std::string>, TypeTotals> types;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    TypeTotals& type = types[{nodes[k].op_type, kind_label(nodes[k], totals[k].fell_back)}];
    ++type.nodes;
    type.total += totals[k].total;
    type.durations.insert(type.durations.end(), totals[k].durations.begin(), totals[k].durations.end());
  }
  std::vector<std::pair<std::pair<std::string, std::string>, TypeTotals*>> order;
  for (auto& [key, type] : types) order.emplace_back(key, &type);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second->total > b.second->total; });
  out << "\noperator types (by share; times in microseconds)\n";
  header({{"share%", 7}, {"nodes", 6}, {"calls", 7}, {"total_us", 12}, {"mean_us", 10}, {"median_us", 10},
          {"kind", 9}, {"type", 0}});
  for (auto& [key, type] : order) {
    const std::size_t calls = type->durations.size();
    const double mean = calls > 0 ? static_cast<double>(type->total) / static_cast<double>(calls) : 0.0;
    const double median = median_ns(type->durations);
    out << padded(fixed(share(type->total), 2), 7, true) << "  " << padded(std::to_string(type->nodes), 6, true)
        << "  " << padded(std::to_string(calls), 7, true) << "  "
        << padded(fixed(static_cast<double>(type->total) / 1000.0, 2), 12, true) << "  "
        << padded(fixed(mean / 1000.0, 2), 10, true) << "  " << padded(fixed(median / 1000.0, 2), 10, true) << "  "
        << padded(key.second, 9, true) << "  " << escaped_name(key.first) << "\n";
  }
}

void write_chrome_trace(const RunProfile& profile, std::ostream& out) {
  const std::vector<ProfiledNode>& nodes = profile.nodes();
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  out << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"onemodel profile\"}}";
  std::uint32_t threads = 0;
  for (const NodeTiming& timing : profile.timings()) threads = std::max(threads, timing.thread + 1);
  for (std::uint32_t t = 0; t < threads; ++t) {
    out << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" << t + 1
        << ",\"args\":{\"name\":\"run thread " << t << "\"}}";
  }
  for (const NodeTiming& timing : profile.timings()) {
    const ProfiledNode& node = nodes[timing.node];
    const std::string name =
        node.name.empty() ? escaped_name(node.op_type) + " #" + std::to_string(timing.node) : escaped_name(node.name);
    out << ",\n{\"name\":\"" << json_text(name) << "\",\"cat\":\"" << to_string(node.kind)
        << "\",\"ph\":\"X\",\"ts\":" << fixed(static_cast<double>(timing.start_ns) / 1000.0, 3)
        << ",\"dur\":" << fixed(static_cast<double>(timing.duration_ns) / 1000.0, 3) << ",\"pid\":1,\"tid\":"
        << timing.thread + 1 << ",\"args\":{\"op_type\":\"" << json_text(escaped_name(node.op_type))
        << "\",\"model_op_type\":\"" << json_text(escaped_name(node.model_op_type)) << "\",\"kind\":\""
        << to_string(node.kind) << "\",\"kernel_path\":\"" << json_text(escaped_name(node.kernel_path))
        << "\",\"fell_back\":" << (timing.fell_back ? "true" : "false") << ",\"node\":" << timing.node
        << ",\"run\":" << timing.run << "}}";
  }
  out << "\n]}\n";
}

}  // namespace onemodel::cli
