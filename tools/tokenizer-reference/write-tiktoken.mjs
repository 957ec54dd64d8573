// Writes cl100k_base.tiktoken and o200k_base.tiktoken into OUTDIR, in
// tiktoken's rank-file format (lines "<base64 bytes> <rank>", as OpenAI
// publishes them), from the tiktoken package's encoders/*.json, for
// `openloop --tokenizer tiktoken:FILE`. Their compressed "bpe_ranks" is lines
// of "NAME OFFSET TOKEN TOKEN ...": the tokens take the ranks from OFFSET on.
// Each file written is checked against the SHA-256 OpenAI's tiktoken pins for
// its download (tiktoken_ext/openai_public.py): the same bytes.
//
//   node write-tiktoken.mjs OUTDIR
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const [outDir] = process.argv.slice(2);
if (!outDir || process.argv.length !== 3) {
  process.stderr.write("usage: node write-tiktoken.mjs OUTDIR\n");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const pinned = {
  cl100k_base: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
  o200k_base: "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
};
for (const [name, sha256] of Object.entries(pinned)) {
  const { bpe_ranks } = require(`tiktoken/encoders/${name}.json`);
  const out = [];
  for (const line of bpe_ranks.split("\n")) {
    if (line === "") continue;
    const [, offset, ...tokens] = line.split(" ");
    const first = Number.parseInt(offset, 10);
    tokens.forEach((token, i) => out.push(`${token} ${first + i}\n`));
  }
  const text = out.join("");
  const got = createHash("sha256").update(text).digest("hex");
  if (got !== sha256) {
    process.stderr.write(`write-tiktoken.mjs: ${name}: SHA-256 ${got}, OpenAI's file has ${sha256}\n`);
    process.exit(1);
  }
  // Written whole, then renamed: a test that runs beside this one never reads half a file.
  const file = join(outDir, `${name}.tiktoken`);
  writeFileSync(`${file}.tmp${process.pid}`, text);
  renameSync(`${file}.tmp${process.pid}`, file);
}
