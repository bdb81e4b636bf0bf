#pragma once
// A small document model, so Markdown and HTML carry the same content from one description.
#include <string>
#include <vector>

#include "core/format.hpp"

namespace tev::reports {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
// One element of a report (heading, paragraph, table or figure); not a verifier's emitted tev::Block.
struct Element {
  enum class Kind { heading, paragraph, table, figure } kind;
  std::string text;  // heading / paragraph text, or the figure's caption
  Table table;
  std::string image;  // figure path relative to the report
};
using Document = std::vector<Element>;

void heading(Document& d, std::string text);
void paragraph(Document& d, std::string text);
void table(Document& d, Table t);
void figure(Document& d, std::string image, std::string caption);

// The first heading is the title; Markdown's **bold** becomes <strong> in HTML.
std::string markdown(const Document& d);
std::string html(const Document& d, const std::string& title);

}  // namespace tev::reports
