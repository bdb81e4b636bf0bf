#include "reports/document.hpp"

#include <cstdio>
#include <sstream>

namespace tev::reports {

namespace {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

// Markdown's **bold** becomes <strong> in HTML.
std::string html_inline(const std::string& s) {
  std::string escaped = html_escape(s), out;
  bool open = false;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped.compare(i, 2, "**") == 0) {
      out += open ? "</strong>" : "<strong>";
      open = !open;
      ++i;
    } else {
      out += escaped[i];
    }
  }
  return out;
}

}  // namespace

void heading(Document& d, std::string text) {
  d.push_back({Element::Kind::heading, std::move(text), {}, {}});
}
void paragraph(Document& d, std::string text) {
  d.push_back({Element::Kind::paragraph, std::move(text), {}, {}});
}
void table(Document& d, Table t) { d.push_back({Element::Kind::table, {}, std::move(t), {}}); }
void figure(Document& d, std::string image, std::string caption) {
  d.push_back({Element::Kind::figure, std::move(caption), {}, std::move(image)});
}

std::string markdown(const Document& d) {
  std::ostringstream md;
  bool first = true;
  for (const Element& b : d) {
    switch (b.kind) {
      case Element::Kind::heading:
        md << (first ? "# " : "\n## ") << b.text << "\n\n";
        first = false;
        break;
      case Element::Kind::paragraph:
        md << b.text << "\n\n";
        break;
      case Element::Kind::figure:
        md << "![" << b.text << "](" << b.image << ")\n\n*" << b.text << "*\n\n";
        break;
      case Element::Kind::table: {
        auto row = [&](const std::vector<std::string>& cells) {
          md << "|";
          for (const std::string& c : cells) {
            std::string cell;
            for (char ch : c)
              cell += ch == '|' ? std::string("\\|")
                                : std::string(1, ch);  // a bare | would end the cell
            md << " " << cell << " |";
          }
          md << "\n";
        };
        row(b.table.header);
        md << "|";
        for (std::size_t i = 0; i < b.table.header.size(); ++i) md << "---|";
        md << "\n";
        for (const auto& r : b.table.rows) row(r);
        md << "\n";
        break;
      }
    }
  }
  return md.str();
}

std::string html(const Document& d, const std::string& title) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
    << html_escape(title)
    << "</title>\n"
       "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.4}"
       "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}td,th{border:1px solid "
       "#bbb;padding:3px 6px;text-align:left}"
       "th{background:#eee}img{max-width:100%}figcaption{font-style:italic;color:#444}</style></"
       "head><body>\n";
  bool first = true;
  for (const Element& b : d) {
    switch (b.kind) {
      case Element::Kind::heading:
        h << (first ? "<h1>" : "<h2>") << html_escape(b.text) << (first ? "</h1>\n" : "</h2>\n");
        first = false;
        break;
      case Element::Kind::paragraph:
        h << "<p>" << html_inline(b.text) << "</p>\n";
        break;
      case Element::Kind::figure:
        h << "<figure><img src=\"" << html_escape(b.image) << "\" alt=\"" << html_escape(b.text)
          << "\"><figcaption>" << html_escape(b.text) << "</figcaption></figure>\n";
        break;
      case Element::Kind::table:
        h << "<table><tr>";
        for (const std::string& c : b.table.header) h << "<th>" << html_escape(c) << "</th>";
        h << "</tr>\n";
        for (const auto& r : b.table.rows) {
          h << "<tr>";
          for (const std::string& c : r) h << "<td>" << html_inline(c) << "</td>";
          h << "</tr>\n";
        }
        h << "</table>\n";
        break;
    }
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace tev::reports
