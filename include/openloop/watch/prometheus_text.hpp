#pragma once
// The Prometheus text exposition format (version 0.0.4), as vLLM, SGLang,
// llama.cpp and the node and DCGM exporters serve it on /metrics. OpenMetrics'
// extras parse harmlessly: `# EOF` ends the text, `_created` series are plain
// samples, `unknown`/`info`/`stateset`/`gaugehistogram` types map to ours.
// Pure: bytes in, values out; never throws. A line it cannot read is counted
// and skipped, so one odd exporter line does not lose the rest of a scrape.
// Linear in the text's size (the caller bounds the size).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

enum class prom_type { untyped, counter, gauge, histogram, summary };

struct prom_sample {
    std::string name;
    std::vector<std::pair<std::string, std::string>> labels;  // as written, values unescaped
    double value = 0;
};

struct prom_family {
    std::string name;  // as in `# TYPE` / `# HELP`
    prom_type type = prom_type::untyped;
    std::string help;  // unescaped
};

struct prom_scrape {
    std::vector<prom_sample> samples;     // in text order
    std::vector<prom_family> families;    // sorted by name, one per name
    std::size_t bad_lines = 0;
    std::size_t first_bad_line = 0;       // 1-based; 0: none
};

prom_scrape parse_prometheus_text(std::string_view text);

// The type of the family a sample belongs to: its own name's family, else the
// family its suffix names (`_bucket`, `_sum`, `_count` of a histogram or
// summary; `_total` or `_created` of a counter, `_created` of a histogram or
// summary). untyped when no `# TYPE` line names either.
prom_type type_of(const prom_scrape& scrape, std::string_view sample_name);

// The family named exactly so; nullptr when none.
const prom_family* find_family(const prom_scrape& scrape, std::string_view name);

}  // namespace openloop
