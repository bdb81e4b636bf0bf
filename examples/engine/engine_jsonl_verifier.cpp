// The same engine walk behind tevsuite's subprocess protocol, for comparison with the in-process
// check: reads one case per line on stdin (tevsuite's own reader) and writes its samples as JSON
// lines, {"case_id": ..., "accepted": [...], "bonus": ...}. Run it with
//   tevsuite conformance run --verifier-cmd engine_jsonl_verifier
#include <cstdio>
#include <iostream>
#include <string>

#include <tevsuite/check.hpp>

#include "engine_adapters.hpp"

int main() {
  std::string line, out;
  std::uint64_t seed = tevsuite::kDefaultSeed;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const tevsuite::OwnedTreeCase c = tevsuite::read_tree_case(line);
    const engine::TreeView view = engine::engine_view(c.view());
    for (std::uint64_t s = 0; s < c.samples; ++s) {
      engine::Rng rng(++seed);
      const engine::Block b = engine::verify_tree(view, rng);
      out = "{\"case_id\": \"" + c.id + "\", \"accepted\": [";
      for (std::size_t k = 0; k < b.accepted.size(); ++k)
        out += (k ? ", " : "") + std::to_string(b.accepted[k]);
      out += "], \"bonus\": " + std::to_string(b.bonus) + "}\n";
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
    std::fflush(stdout);
  }
}
