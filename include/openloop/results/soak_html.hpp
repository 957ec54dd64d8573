#pragma once
// A soak's part of report.html: its headline, a verdict per watched signal,
// and each signal's windows drawn with the line fitted to them and the step
// found in them, as judged again from windows.jsonl (results/soak_report:
// the same verdicts summary.json holds). Pure.

#include <boost/json/object.hpp>

#include <string_view>

namespace openloop {

class html_page;

// soak: summary.json's "soak" object (its warm-up windows).
void soak_section(html_page& page, const boost::json::object& soak, std::string_view windows_jsonl);

}  // namespace openloop
