#include "openloop/cli/tokenize_command.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/tokenize/local_tokenizer.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <fstream>
#include <iostream>
#include <iterator>

namespace openloop {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

constexpr const char* tokenize_usage =
    "Usage: openloop tokenize --tokenizer hf:PATH|tiktoken:FILE [--add-special] [--jsonl FILE] [TEXT]\n\n"
    "Tokenizes text with a model's own tokenizer, run in openloop's process, to see the ids the model's server\n"
    "would get. hf:PATH is a Hugging Face tokenizer.json, or a model directory that holds\n"
    "one (its tokenizer_config.json is read too); tiktoken:FILE is a .tiktoken rank file whose name says the\n"
    "encoding (cl100k_base, o200k_base, r50k_base, p50k_base). Added and special tokens written in the text\n"
    "(\"<|im_start|>\") are matched as such; --add-special also adds what the tokenizer puts around a prompt\n"
    "(Llama's <s>, Gemma's <bos>). Invalid UTF-8 is read as U+FFFD, as a JavaScript string would be.\n\n"
    "Without --jsonl: tokenizes TEXT (or, without it, all of stdin) and prints \"N tokens\" and then the ids on\n"
    "one line, separated by spaces.\n"
    "With --jsonl FILE: each line of FILE is a JSON string; prints one line per input line,\n"
    "  {\"ids\":[...],\"text\":\"...\"}\n"
    "with text the ids decoded again (special tokens kept). Empty lines are skipped.\n\n"
    "Exit status: 0, or 2 for bad usage, an unreadable tokenizer, a text the tokenizer refuses (a normalizer that\n"
    "multiplies it past 32 times its length, a regex that PCRE2 gives up on; named with the file and the step or\n"
    "pattern) or a line of FILE that is not a JSON string (named FILE:LINE).\n\n"
    "Example:\n"
    "  openloop tokenize --tokenizer hf:models/Llama-3.1-8B 'Hello, world'\n\n";

std::unique_ptr<local_tokenizer> load(const std::string& spec) {
    try {
        if (spec.starts_with("hf:")) return load_hf_tokenizer(spec.substr(3));
        if (spec.starts_with("tiktoken:")) return load_tiktoken(spec.substr(9));
    } catch (const std::runtime_error& e) {
        throw usage_error(std::string("--tokenizer: ") + e.what());
    }
    throw usage_error("--tokenizer " + spec + ": expected hf:PATH (a tokenizer.json or its directory) or tiktoken:FILE");
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The \uXXXX escape at line[i] (i at the backslash), or -1.
int escape_at(const std::string& line, std::size_t i) {
    if (i + 6 > line.size() || line[i] != '\\' || line[i + 1] != 'u') return -1;
    int v = 0;
    for (std::size_t k = i + 2; k < i + 6; ++k) {
        const int h = hex_value(line[k]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

// A JSON line as JavaScript would read it: invalid UTF-8 and escaped lone
// surrogates (which JSON allows, Boost.JSON refuses) become U+FFFD, as they do
// when the reference encodes the string.
std::string as_javascript_reads(const std::string& raw) {
    const std::string line = utf8::sanitize(raw);
    std::string out;
    out.reserve(line.size());
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] != '\\' || i + 1 >= line.size()) {
            out += line[i];
            continue;
        }
        const int v = escape_at(line, i);
        if (v >= 0xD800 && v <= 0xDBFF) {
            const int low = escape_at(line, i + 6);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                out.append(line, i, 12);
                i += 11;
            } else {
                out += "\\uFFFD";
                i += 5;
            }
        } else if (v >= 0xDC00 && v <= 0xDFFF) {
            out += "\\uFFFD";
            i += 5;
        } else {
            out.append(line, i, 2);  // any other escape, \\ included
            ++i;
        }
    }
    return out;
}

void print_ids(const std::vector<std::int32_t>& ids, char separator) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i) std::cout << separator;
        std::cout << ids[i];
    }
}

int tokenize_jsonl(const local_tokenizer& tok, const std::string& file, bool add_special) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw input_error(file + ": cannot be read");
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        boost::system::error_code ec;
        const json::value v = json::parse(as_javascript_reads(line), ec);
        if (ec || !v.is_string())
            throw input_error(file + ":" + std::to_string(number) + ": not a JSON string" +
                              (ec ? " (" + ec.message() + ")" : ""));
        const std::vector<std::int32_t> ids = tok.encode(v.get_string(), add_special);
        std::cout << "{\"ids\":[";
        print_ids(ids, ',');
        std::cout << "],\"text\":" << json::serialize(json::string(tok.decode(ids, false))) << "}\n";
    }
    return 0;
}

}  // namespace

int tokenize_main(const std::vector<std::string>& args) {
    po::options_description opts("Options", help_width, help_width / 2);
    opts.add_options()("help,h", "show this help")(
        "tokenizer", po::value<std::string>(), "hf:PATH (tokenizer.json or its directory) or tiktoken:FILE")(
        "add-special", po::bool_switch(), "add the tokenizer's special tokens around the text (BOS and the like)")(
        "jsonl", po::value<std::string>(), "tokenize each line of FILE (a JSON string); print ids and decoded text");
    po::options_description hidden;
    hidden.add_options()("text", po::value<std::string>());
    po::options_description all;
    all.add(opts).add(hidden);
    po::positional_options_description positional;
    positional.add("text", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    } catch (const po::error& e) {
        throw usage_error(std::string("tokenize: ") + e.what());
    }
    if (vm.count("help")) {
        std::cout << tokenize_usage << opts;
        return 0;
    }
    if (!vm.count("tokenizer")) throw usage_error("tokenize: --tokenizer hf:PATH or tiktoken:FILE is needed");
    if (vm.count("jsonl") && vm.count("text")) throw usage_error("tokenize: give TEXT or --jsonl FILE, not both");
    const auto tok = load(vm["tokenizer"].as<std::string>());
    const bool add_special = vm["add-special"].as<bool>();
    if (vm.count("jsonl")) return tokenize_jsonl(*tok, vm["jsonl"].as<std::string>(), add_special);
    std::string text;
    if (vm.count("text")) text = vm["text"].as<std::string>();
    else text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    const std::vector<std::int32_t> ids = tok->encode(text, add_special);
    std::cout << ids.size() << " tokens\n";
    print_ids(ids, ' ');
    std::cout << "\n";
    return 0;
}

}  // namespace openloop
