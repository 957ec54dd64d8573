#pragma once
// Recorded conversations for multi-turn sessions (--conversations FILE):
// every user turn of each, with the length of the answer it got, so a
// session replays the user's side while the server writes the answers.
// Pure apart from reading the file; errors name the file and line.

#include <cstddef>
#include <string>
#include <vector>

namespace openloop {

struct recorded_turn {
    std::string user;
    int input_tokens = 0;   // words of user (as file prompts count them)
    int answer_tokens = 0;  // words of the recorded answer: the turn's max_tokens
};

struct recorded_conversation {
    std::string system;  // a system prompt, sent first in every turn; empty: none
    std::vector<recorded_turn> turns;
};

struct conversation_file {
    std::vector<recorded_conversation> conversations;
    std::size_t skipped = 0;  // entries without one user turn answered
    std::size_t max_turns = 0;
};

// Two shapes, told apart by the first byte that is not white space:
//   [ ... ]  ShareGPT JSON: entries {"conversations": [{"from", "value"}, ...]}
//            ("human"/"user", "gpt"/"assistant"/"chatgpt"/"bing"/"bard", "system")
//   { ...    JSONL, one conversation per line: {"messages": [{"role", "content"}, ...]}
//            (OpenAI's roles) or a ShareGPT entry; blank lines ignored
// A user message followed by an answer is a turn; consecutive user messages
// join; a conversation ends at its first user message without an answer, and
// after max_turns turns. Throws input_error naming the file (and line).
conversation_file read_conversations(const std::string& path, std::size_t max_turns);

}  // namespace openloop
