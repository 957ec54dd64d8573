#pragma once
// tokenizer.json's pre-tokenizers: Split (a String or Regex pattern, every
// behavior, invert), ByteLevel (GPT-2's regex and byte alphabet), Metaspace,
// Digits, Whitespace, WhitespaceSplit, Punctuation and Sequence. Regexes are
// read as transformers.js reads them (unicode_regex's JavaScript dialect).

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace openloop::hf {

// The pre-tokenizer of type type, or nullptr when type is not one of these.
std::unique_ptr<pre_tokenizer> make_builtin_pre_tokenizer(std::string_view type, const boost::json::object& o,
                                                          const std::string& path);

// How a Split keeps the pattern's matches (tokenizers' SplitDelimiterBehavior).
enum class split_behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

// The pieces of text, given the [start, end) of the pattern's matches in it.
// Exposed for the pre-tokenizers that split by a rule of their own.
void split_by_matches(const piece& in, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                      split_behavior behavior, bool invert, std::vector<piece>& out);

}  // namespace openloop::hf
