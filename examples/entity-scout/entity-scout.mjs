#!/usr/bin/env node
// EntityScout (seed 003) on top of llm-response-sanitizer: each source file → a FileAnalysisReport of its
// points of interest, asked of any OpenAI-compatible endpoint through queryWithCorrection, so a malformed
// answer is repaired, a wrong one is corrected with every problem listed, and 429/5xx are retried.
//
//   node examples/entity-scout/entity-scout.mjs [options] PATH...      (see --help)
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { queryWithCorrection, createOpenAIQuery, SchemaValidationError } from 'llm-response-sanitizer';

export const POI_TYPES = ['FunctionDefinition', 'ClassDefinition', 'MethodDefinition', 'VariableDeclaration', 'TypeDefinition', 'ImportStatement'];

const LANGUAGES = {
  '.js': 'JavaScript',
  '.mjs': 'JavaScript',
  '.cjs': 'JavaScript',
  '.jsx': 'JavaScript',
  '.ts': 'TypeScript',
  '.tsx': 'TypeScript',
  '.py': 'Python',
  '.rs': 'Rust',
  '.go': 'Go',
  '.java': 'Java',
  '.rb': 'Ruby',
  '.c': 'C',
  '.h': 'C',
  '.cpp': 'C++',
  '.cs': 'C#',
  '.md': 'Markdown',
};

export const DEFAULT_CONFIG = {
  fileExtensions: ['.js', '.mjs', '.ts', '.tsx', '.py', '.rs', '.go', '.java'],
  llmModel: 'gpt-4o-mini',
  maxFileSize: 100_000,
  maxRetries: 2,
};

/** The JSON Schema of an answer about a file of `lines` lines: line numbers must lie in the file. */
export function poiSchema(lines) {
  const line = { type: 'integer', minimum: 1, maximum: Math.max(1, lines) };
  return {
    type: 'object',
    properties: {
      pois: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1 },
            type: { enum: POI_TYPES },
            startLine: line,
            endLine: line,
            confidence: { type: 'number', minimum: 0, maximum: 1 },
          },
          required: ['name', 'type', 'startLine', 'endLine', 'confidence'],
          additionalProperties: false,
        },
      },
    },
    required: ['pois'],
    additionalProperties: false,
  };
}

export class EntityScout {
  /**
   * @param config {fileExtensions, llmModel, maxFileSize, maxRetries} and how to reach the model: `query`
   *   (prompt → text), or `baseURL`/`apiKey`/`stream` for an OpenAI-compatible endpoint; `backoff` and `signal`
   *   go to queryWithCorrection.
   */
  constructor(config = {}) {
    this.config = { ...DEFAULT_CONFIG, ...config };
    const { fileExtensions, maxFileSize, maxRetries } = this.config;
    if (!Array.isArray(fileExtensions) || !fileExtensions.every((e) => typeof e === 'string')) throw new TypeError('fileExtensions must be an array of strings');
    if (!Number.isInteger(maxFileSize) || maxFileSize < 0) throw new RangeError('maxFileSize must be a non-negative integer (bytes)');
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError('maxRetries must be a non-negative integer');
    this.extensions = new Set(fileExtensions.map((e) => (e.startsWith('.') ? e : `.${e}`).toLowerCase()));
    this.llmClient = {
      query:
        this.config.query ??
        createOpenAIQuery({
          baseURL: this.config.baseURL,
          apiKey: this.config.apiKey,
          model: this.config.llmModel,
          stream: this.config.stream === true,
          temperature: 0,
          system: 'You analyse source code and answer with JSON only.',
        }),
    };
  }

  /** Analyses one file. Never throws for a file's own problems: they become `status: 'error'` or `'skipped'`. */
  async run(filePath) {
    const extension = extname(filePath).toLowerCase();
    const report = { filePath, fileChecksum: null, language: LANGUAGES[extension] ?? 'Unknown', pois: [], status: 'processed', analysisAttempts: 0 };
    let size;
    try {
      size = (await stat(filePath)).size;
      report.fileChecksum = await this._calculateChecksum(filePath);
    } catch (e) {
      return { ...report, status: 'error', error: `cannot read the file: ${e.message}` };
    }
    if (!this.extensions.has(extension)) return { ...report, status: 'skipped', error: `extension ${extension || '(none)'} is not in fileExtensions` };
    if (size > this.config.maxFileSize) return { ...report, status: 'skipped', error: `${size} bytes is over maxFileSize (${this.config.maxFileSize})` };
    const content = await readFile(filePath, 'utf8');
    const { pois, attempts, error } = await this._analyzeFileContent(filePath, report.language, content);
    return error === undefined ? { ...report, pois, analysisAttempts: attempts } : { ...report, status: 'error', error, analysisAttempts: attempts };
  }

  /** The resilient loop: query, sanitize, validate, correct; `attempts` counts the model's answers. */
  async _analyzeFileContent(filePath, language, content) {
    const lines = content.split('\n').length;
    let attempts = 0;
    try {
      const result = await queryWithCorrection({
        query: (prompt, context) => this.llmClient.query(prompt, context),
        prompt: this._generatePrompt(filePath, language, content),
        schema: poiSchema(lines),
        maxRetries: this.config.maxRetries,
        backoff: this.config.backoff,
        signal: this.config.signal,
        // What the schema cannot say: a POI does not end before it starts.
        check: (value) =>
          value.pois.flatMap((p, i) => (p.endLine < p.startLine ? [{ path: `/pois/${i}/endLine`, message: `endLine ${p.endLine} is before startLine ${p.startLine}` }] : [])),
        onAttempt: (entry) => {
          if (entry.kind === 'answer') attempts = entry.attempt;
          this.config.onAttempt?.(filePath, entry);
        },
      });
      return { pois: result.value.pois, attempts: result.attempts };
    } catch (e) {
      if (e instanceof SchemaValidationError) {
        const first = e.issues[0];
        return { attempts: e.attempts, error: `no valid analysis after ${e.attempts} answers: ${first === undefined ? e.message : `${first.path || 'root'}: ${first.message}`}` };
      }
      if (e?.name === 'AbortError') throw e;
      return { attempts, error: `the model could not be reached: ${e.message}` };
    }
  }

  _generatePrompt(filePath, language, content) {
    const numbered = content
      .split('\n')
      .map((l, i) => `${String(i + 1).padStart(4)}| ${l}`)
      .join('\n');
    return [
      'Find the points of interest in this source file: functions, classes, methods, top-level variables, types and imports.',
      `Answer with one JSON object {"pois": [...]}; each POI has "name", "type" (one of ${POI_TYPES.join(', ')}),`,
      '"startLine" and "endLine" (1-based, inclusive) and "confidence" (0 to 1).',
      '',
      `File: ${filePath}`,
      `Language: ${language}`,
      '<<<FILE',
      numbered,
      'FILE>>>',
    ].join('\n');
  }

  /** SHA-256 of the file's bytes, read as a stream (a large file is not loaded to be skipped). */
  async _calculateChecksum(filePath) {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(filePath)) hash.update(chunk);
    return hash.digest('hex');
  }
}

/** Every file under `paths` (directories walked in name order, `node_modules` and dot-directories left out). */
export async function* walk(paths) {
  for (const p of paths) {
    const s = await stat(p);
    if (!s.isDirectory()) {
      yield p;
      continue;
    }
    const entries = (await readdir(p, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.isDirectory() && (e.name === 'node_modules' || e.name.startsWith('.'))) continue;
      yield* walk([join(p, e.name)]);
    }
  }
}

const HELP = `Usage: entity-scout [options] PATH...

Analyses each source file under PATH with an LLM and prints one FileAnalysisReport per file as a JSON line
on stdout: {filePath, fileChecksum, language, pois, status, error?, analysisAttempts}. A summary goes to stderr.

Options:
  --base-url URL      OpenAI-compatible API root (default $OPENAI_BASE_URL, else https://api.openai.com/v1)
  --api-key KEY       API key (default $OPENAI_API_KEY)
  --model NAME        model (default $MODEL, else ${DEFAULT_CONFIG.llmModel})
  --ext LIST          file extensions to analyse, comma-separated (default ${DEFAULT_CONFIG.fileExtensions.join(',')})
  --max-size BYTES    larger files are skipped (default ${DEFAULT_CONFIG.maxFileSize})
  --max-retries N     correction prompts per file (default ${DEFAULT_CONFIG.maxRetries})
  --stream            stream each answer (server-sent events)
  --help              this text

Exit status: 0 when every analysed file was processed or skipped, 1 when any ended in error, 2 on bad usage.`;

export async function main(argv, { stdout = process.stdout, stderr = process.stderr, env = process.env } = {}) {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        model: { type: 'string' },
        ext: { type: 'string' },
        'max-size': { type: 'string' },
        'max-retries': { type: 'string' },
        stream: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (e) {
    stderr.write(`entity-scout: ${e.message}\n\n${HELP}\n`);
    return 2;
  }
  const v = args.values;
  if (v.help) {
    stdout.write(`${HELP}\n`);
    return 0;
  }
  if (args.positionals.length === 0) {
    stderr.write(`entity-scout: no PATH given\n\n${HELP}\n`);
    return 2;
  }
  const int = (s, name, fallback) => {
    if (s === undefined) return fallback;
    if (!/^\d+$/.test(s)) throw new RangeError(`--${name} must be a non-negative integer, got ${s}`);
    return Number(s);
  };
  let scout;
  try {
    scout = new EntityScout({
      baseURL: v['base-url'] ?? env.OPENAI_BASE_URL,
      apiKey: v['api-key'] ?? env.OPENAI_API_KEY,
      llmModel: v.model ?? env.MODEL ?? DEFAULT_CONFIG.llmModel,
      fileExtensions: v.ext === undefined ? DEFAULT_CONFIG.fileExtensions : v.ext.split(',').filter((e) => e !== ''),
      maxFileSize: int(v['max-size'], 'max-size', DEFAULT_CONFIG.maxFileSize),
      maxRetries: int(v['max-retries'], 'max-retries', DEFAULT_CONFIG.maxRetries),
      stream: v.stream === true,
    });
  } catch (e) {
    stderr.write(`entity-scout: ${e.message}\n`);
    return 2;
  }
  const counts = { processed: 0, skipped: 0, error: 0 };
  let answers = 0;
  let pois = 0;
  const cwd = process.cwd();
  try {
    for await (const file of walk(args.positionals)) {
      const report = await scout.run(file);
      counts[report.status]++;
      answers += report.analysisAttempts;
      pois += report.pois.length;
      stdout.write(`${JSON.stringify(report)}\n`);
      stderr.write(`${report.status.padEnd(9)} ${String(report.analysisAttempts).padStart(2)} answer(s) ${String(report.pois.length).padStart(3)} POIs  ${relative(cwd, file)}${report.error === undefined ? '' : `  (${report.error})`}\n`);
    }
  } catch (e) {
    stderr.write(`entity-scout: ${e.message}\n`);
    return 2;
  }
  stderr.write(`files: ${counts.processed} processed, ${counts.skipped} skipped, ${counts.error} error; ${answers} answers; ${pois} POIs\n`);
  return counts.error === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
