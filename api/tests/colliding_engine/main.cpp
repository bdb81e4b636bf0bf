// Exit 0 when the engine's verifier gets tevsuite's verdict for it: exact, not saturated.
#include <cstdio>

#include <tevsuite/check.hpp>

#include "api/verifier_check.hpp"
#include "core/block.hpp"

int main() {
  tevsuite::TreeCheckOptions options;
  options.threads = 2;
  const tevsuite::Report report = tevsuite::check_tree_verifier(
      [](const tevsuite::TreeCase& c, tevsuite::Randomness& r) {
        const tev::Block b = tev::verify_root(c.row(0).data(), c.vocab, r.uniform());
        return tevsuite::Block{{}, b.tokens.back()};
      },
      options);
  std::printf("%s", tevsuite::describe(report).c_str());
  return report.verdict == tevsuite::Verdict::exact_not_saturated ? 0 : 1;
}
