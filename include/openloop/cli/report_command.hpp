#pragma once
// `openloop report DIR`: the summary of a run, sweep stage or soak that did
// not finish (killed, the machine lost), rebuilt from what it left on disk:
// run.json (how it was driven), requests.jsonl (every request that ended)
// and, for a soak, windows.jsonl (its verdicts).

#include <string>
#include <vector>

namespace openloop {

int report_main(const std::vector<std::string>& args);

}  // namespace openloop
