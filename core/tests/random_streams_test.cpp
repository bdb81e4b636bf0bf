// The registry of random streams: no two uses may read the same Philox blocks.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "core/philox.hpp"
#include "core/random_streams.hpp"

namespace tev {
namespace {

// Two uses collide when they share a stream and either owns it whole or both hold the same tag.
TEST(RandomStreams, NoTwoUsesShareAStreamOrATag) {
  for (std::size_t a = 0; a < kRandomUses.size(); ++a) {
    for (std::size_t b = a + 1; b < kRandomUses.size(); ++b) {
      const RandomUse& x = kRandomUses[a];
      const RandomUse& y = kRandomUses[b];
      if (x.stream != y.stream) continue;
      EXPECT_FALSE(x.tag == kWholeStream || y.tag == kWholeStream)
          << x.name << " and " << y.name << " share a stream one of them owns";
      EXPECT_NE(x.tag, y.tag) << x.name << " and " << y.name << " share a tag";
    }
  }
}

// The same as the draws see it: index 0 of every use, at one seed, starts with a block no other
// use's index 0 starts with (whole-stream uses at tree 0, sample 0).
TEST(RandomStreams, EveryUseStartsFromItsOwnBlock) {
  std::set<std::pair<std::uint64_t, std::uint64_t>> first_blocks;
  for (const RandomUse& use : kRandomUses) {
    const DrawSite site =
        use.tag == kWholeStream ? DrawSite{kDefaultSeed, use.stream, 0, 0} : use.site(kDefaultSeed);
    const auto block = philox_block(site, 0);
    const bool fresh = first_blocks
                           .emplace((std::uint64_t{block[0]} << 32) | block[1],
                                    (std::uint64_t{block[2]} << 32) | block[3])
                           .second;
    EXPECT_TRUE(fresh) << use.name;
  }
}

}  // namespace
}  // namespace tev
