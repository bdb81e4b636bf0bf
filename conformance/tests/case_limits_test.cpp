// Input limits of the case reader: integers are range-checked before they are narrowed, and a case
// too large to hold is refused before anything of its size is allocated. Its own program: it
// replaces the global operator new to record the largest allocation.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/case_io.hpp"
#include "conformance/model_case.hpp"

namespace {
std::atomic<std::size_t> largest_allocation{0};
}  // namespace

void* operator new(std::size_t size) {
  std::size_t seen = largest_allocation.load();
  while (size > seen && !largest_allocation.compare_exchange_weak(seen, size)) {}
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// Pairs with the malloc above; g++ cannot see that operator new is replaced and warns.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace tev::conformance {
namespace {

using nlohmann::json;

json two_node_case() {
  return json::parse(R"({"format_version": 1, "case_id": "c", "vocab": 2, "parents": [-1, 0],
    "tokens": [null, 0], "probs": [[0.5, 0.5], [0.5, 0.5]], "samples": 4})");
}

// The message of the InputError `read` throws ("" when it throws none).
template <class Read>
std::string refusal(Read&& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// 4294967297 = 2^32 + 1 narrows to parent 1, the node itself, in 32 bits; 2^64 - 1 is unsigned in
// JSON and wraps to -1 (the root's parent) as a signed 64-bit integer.
TEST(CaseLimits, IntegersAreCheckedBeforeTheyAreNarrowed) {
  json wrapped = two_node_case();
  wrapped["case_id"] = "d";
  wrapped["parents"] = {-1, 0, 4294967297ll};
  wrapped["tokens"] = {nullptr, 0, 1};
  wrapped["probs"].push_back({0.5, 0.5});
  std::istringstream in(two_node_case().dump() + "\n" + wrapped.dump() + "\n");
  CaseReader reader(in, "cases.jsonl");
  EXPECT_TRUE(reader.next().has_value());
  const std::string message = refusal([&] { reader.next(); });
  EXPECT_NE(message.find("cases.jsonl:2"), std::string::npos) << message;
  EXPECT_NE(message.find("node 2 parent is 4294967297, outside [-1, 2]"), std::string::npos)
      << message;

  const auto refused = [](const char* field, json value) {
    json j = two_node_case();
    j[field] = value;
    return refusal([&] { parse_case(j.dump(), "f:1"); });
  };
  EXPECT_NE(refused("parents", {-1, 18446744073709551615ull})
                .find("node 1 parent is 18446744073709551615"),
            std::string::npos);
  EXPECT_NE(
      refused("tokens", {nullptr, 4294967296ll}).find("node 1 token is 4294967296, outside [0, 1]"),
      std::string::npos);
  EXPECT_NE(
      refused("samples", 18446744073709551615ull).find("samples is 18446744073709551615, outside"),
      std::string::npos);
  EXPECT_NE(refused("vocab", 4294967298ll).find("vocab is 4294967298, outside"), std::string::npos);
  EXPECT_NE(refused("format_version", 18446744073709551615ull)
                .find("format_version is 18446744073709551615"),
            std::string::npos);
}

// Two nodes of sparse rows over V = 2^24: a line of ~200 bytes that would fill 2^25 cells (256 MiB
// of doubles). Refused with the limit named, and nothing near that size allocated first.
TEST(CaseLimits, AnOversizedCaseIsRefusedBeforeItsRowsAreAllocated) {
  json j = two_node_case();
  j["vocab"] = kMaxVocab;
  j["probs"] = {{{"tokens", {0}}, {"probs", {0.5}}},
                {{"tokens", json::array()}, {"probs", json::array()}}};
  const std::string line = j.dump();
  largest_allocation = 0;
  const std::string message = refusal([&] { parse_case(line, "big.jsonl:3"); });
  EXPECT_NE(message.find("big.jsonl:3"), std::string::npos) << message;
  EXPECT_NE(message.find("nodes × vocab = 33554432 cells is more than the 16777216"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("kMaxCells"), std::string::npos) << message;
  EXPECT_LT(largest_allocation.load(), std::size_t{1} << 20);
  // The same case within the limit is read, and then its rows are allocated: the recorder sees them.
  j["vocab"] = kMaxCells / 2;
  largest_allocation = 0;
  EXPECT_EQ(parse_case(j.dump(), "big.jsonl:3").rows.vocab(), kMaxCells / 2);
  EXPECT_GE(largest_allocation.load(), static_cast<std::size_t>(kMaxCells) * sizeof(double));
}

// A model case over V = 2^24 at depth 2 (a line of ~150 bytes) would need V^3 cells: refused from
// V and D alone, before any row or its sparse listing is read; integers range-checked as written.
TEST(CaseLimits, AnOversizedModelCaseIsRefusedBeforeItsRowsAreAllocated) {
  json j = json::parse(
      R"({"format_version": 2, "case_id": "m", "vocab": 16777216, "depth": 2, "samples": 1,
    "rows": [{"prefix": [], "p": {"tokens": [], "probs": []}, "q": {"tokens": [], "probs": []}}]})");
  largest_allocation = 0;
  const std::string message = refusal([&] { parse_model_case(j.dump(), "big.jsonl:4"); });
  EXPECT_NE(
      message.find(
          "big.jsonl:4 (case m): vocab 16777216 at depth 2 needs more than the 16777216 cells"),
      std::string::npos)
      << message;
  EXPECT_LT(largest_allocation.load(), std::size_t{1} << 20);
  j["depth"] = 4294967298ll;
  EXPECT_NE(refusal([&] {
              parse_model_case(j.dump(), "f:1");
            }).find("depth is 4294967298, outside [1, 11]"),
            std::string::npos);
  j["depth"] = 1;
  j["rows"][0]["prefix"] = {18446744073709551615ull};
  j["vocab"] = 4;
  EXPECT_NE(refusal([&] {
              parse_model_case(j.dump(), "f:1");
            }).find("prefix token 0 is 18446744073709551615, outside [0, 3]"),
            std::string::npos);
  // Model cases count their rows, law and counts against the held cells too: V = 4, D = 1 holds
  // 2 (4 + 16) + 2 · 16 = 72 cells.
  EXPECT_EQ(model_cells(4, 1, kMaxHeldCells), 72);
  EXPECT_EQ(model_cells(kMaxVocab, kMaxModelDepth, kMaxHeldCells), kMaxHeldCells + 1);
}

// The cases a reader hands out may not hold more than held_cells together: the third case of 4
// cells each is refused at a budget of 10, naming its line and the limit.
TEST(CaseLimits, CasesHeldAtOnceStayWithinTheHeldCells) {
  std::string text;
  for (const char* id : {"a", "b", "c"}) {
    json j = two_node_case();
    j["case_id"] = id;
    text += j.dump() + "\n\n";
  }
  std::istringstream in(text);
  CaseReader reader(in, "cases.jsonl", {.held_cells = 10});
  EXPECT_TRUE(reader.next().has_value());
  EXPECT_TRUE(reader.next().has_value());
  const std::string message = refusal([&] { reader.next(); });
  EXPECT_NE(message.find("cases.jsonl:5"), std::string::npos) << message;
  EXPECT_NE(message.find("4 cells is more than the 2 this case may hold"), std::string::npos)
      << message;
  EXPECT_NE(message.find("kMaxHeldCells"), std::string::npos) << message;
}

// A JSON tree larger than the value limit is refused while it grows.
TEST(CaseLimits, AJsonTreeOverTheValueLimitIsRefused) {
  const std::string line = two_node_case().dump();
  EXPECT_NO_THROW(parse_case(line, "f:1", {.json_values = 64}));
  const std::string message = refusal([&] { parse_case(line, "f:1", {.json_values = 8}); });
  EXPECT_NE(message.find("f:1: more than 8 JSON values"), std::string::npos) << message;
}

// A line over the byte limit is refused without reading past the limit; shorter lines are whole.
TEST(CaseLimits, LinesAreReadNoFurtherThanTheLimit) {
  std::istringstream in("short\n" + std::string(100, 'x') + "\nrest");
  std::string line;
  ASSERT_TRUE(read_bounded_line(in, line, 10, "f:1"));
  EXPECT_EQ(line, "short");
  const std::string message = refusal([&] { read_bounded_line(in, line, 10, "f:2"); });
  EXPECT_NE(message.find("f:2: line longer than 10 bytes"), std::string::npos) << message;
  EXPECT_EQ(static_cast<std::size_t>(in.tellg()),
            std::string("short\n").size() + 11);  // stopped at the 11th byte
  EXPECT_EQ(refusal([&] {
              CaseReader(in, "f", {.line_bytes = 4}).next();
            }).find("f:1: line longer than 4 bytes"),
            0u);
}

// A case_id used twice is refused naming both lines; an input without cases is refused.
TEST(CaseLimits, DuplicateIdsAndEmptyInputs) {
  std::istringstream twice(two_node_case().dump() + "\n" + two_node_case().dump() + "\n");
  CaseReader reader(twice, "cases.jsonl");
  reader.next();
  EXPECT_NE(
      refusal([&] { reader.next(); }).find("cases.jsonl:2: case_id \"c\" already used on line 1"),
      std::string::npos);
  std::istringstream blank("\n  \n");
  EXPECT_NE(refusal([&] { CaseReader(blank, "empty.jsonl").next(); }).find("empty.jsonl: no cases"),
            std::string::npos);
}

}  // namespace
}  // namespace tev::conformance
