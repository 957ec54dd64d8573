#pragma once
// report.html's page: one self-contained file (its style inline, no script
// or font fetched, nothing but what openloop wrote) that opens offline in any
// browser, prints on white and reads on a dark screen. What a reader needs
// first comes first: the verdict (INVALID in red, with its reasons), the
// headline, then the charts, the tables, and how the result was made. Pure:
// the builders in results/*_html put text in, str() gives the page.

#include <boost/json/object.hpp>

#include <initializer_list>
#include <string>
#include <vector>

namespace openloop {

class html_page {
public:
    // kind: "run", "sweep", "soak", "merge"; the page's <body data-kind>.
    html_page(const std::string& title, const std::string& kind);

    // The verdict banner: word ("VALID", "INVALID", "INTERRUPTED") and why.
    void verdict(bool good, const std::string& word, const std::vector<std::string>& reasons);
    // The line a reader takes away, under the verdict.
    void headline(const std::string& text);
    void section(const std::string& heading);
    // id: for a reader of the DOM, when the paragraph is a result's own words.
    void paragraph(const std::string& text, const std::string& id = "");
    // Charts sit in a grid, two abreast on a wide screen.
    void charts(const std::vector<std::string>& svg_figures);
    // A table whose cells are text; data-table names it for a reader of the DOM.
    void table(const std::string& id, const std::vector<std::string>& header,
               const std::vector<std::vector<std::string>>& rows);
    // Every field of an object as name/value rows (how the result was driven).
    void fields(const std::string& id, const boost::json::object& object);
    // The closing section, how the result was made: the named fields of the
    // result's document, then its config and environment objects where it has them.
    void how_it_was_run(const boost::json::object& result, std::initializer_list<const char*> keys);

    std::string str() const;

private:
    std::string title_;
    std::string kind_;
    std::string body_;
};

}  // namespace openloop
