#!/usr/bin/env node
// EntityScout (seed 003) on top of llm-response-sanitizer: each source file → a FileAnalysisReport of its
// points of interest, asked of any OpenAI-compatible endpoint through queryWithCorrection, so a malformed
// answer is repaired, a wrong one is corrected with every problem listed, and 429/5xx are retried.
//
//   node examples/entity-scout/entity-scout.mjs [options] PATH...      (see --help)
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { extname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { queryWithCorrection, createOpenAIQuery, compileSchema, SchemaValidationError } from 'llm-response-sanitizer';

/** The POI types the default schema allows (`poiTypes` replaces them). */
export const POI_TYPES = [
  'FunctionDefinition',
  'ClassDefinition',
  'MethodDefinition',
  'VariableDeclaration',
  'TypeDefinition',
  'ImportStatement',
];

/**
 * A report's `status`, with the Cognitive Triangulation Pipeline's names, and the outcome each stands for
 * (seed 003's `processed`, `skipped` and `error`). `FAILED_FILE_READ_ERROR` is ours: a file that exists but
 * cannot be read (a directory, no permission).
 */
export const REPORT_STATUSES = Object.freeze({
  COMPLETED_SUCCESS: 'processed',
  SKIPPED_FILE_TOO_LARGE: 'skipped',
  FAILED_VALIDATION_ERROR: 'error',
  FAILED_LLM_API_ERROR: 'error',
  FAILED_FILE_NOT_FOUND: 'error',
  FAILED_FILE_READ_ERROR: 'error',
});

/** `processed`, `skipped` or `error`: what a report's `status` comes to. */
export const outcomeOf = (status) => REPORT_STATUSES[status];

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
export function poiSchema(lines, poiTypes = POI_TYPES) {
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
            type: { enum: [...poiTypes] },
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
   *   go to queryWithCorrection. The answer's schema: `poiTypes` for the default one, or `schema` (a JSON
   *   Schema, a zod/valibot/arktype/effect schema, or a function of the file's line count returning one) for
   *   any other; it describes `{pois: [...]}` or the array of POIs itself.
   */
  constructor(config = {}) {
    this.config = { ...DEFAULT_CONFIG, ...config };
    const { fileExtensions, maxFileSize, maxRetries, poiTypes = POI_TYPES, schema } = this.config;
    if (!Array.isArray(fileExtensions) || !fileExtensions.every((e) => typeof e === 'string'))
      throw new TypeError('fileExtensions must be an array of strings');
    if (!Number.isInteger(maxFileSize) || maxFileSize < 0)
      throw new RangeError('maxFileSize must be a non-negative integer (bytes)');
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new RangeError('maxRetries must be a non-negative integer');
    if (!Array.isArray(poiTypes) || poiTypes.length === 0 || !poiTypes.every((t) => typeof t === 'string' && t !== ''))
      throw new TypeError('poiTypes must be a non-empty array of names');
    this.extensions = new Set(fileExtensions.map((e) => (e.startsWith('.') ? e : `.${e}`).toLowerCase()));
    this.poiTypes = poiTypes;
    // A fixed schema is compiled once (a bad one fails here, not on the first file).
    this.schema =
      schema === undefined
        ? (lines) => poiSchema(lines, poiTypes)
        : typeof schema === 'function'
          ? schema
          : (
              (compiled) => () =>
                compiled
            )(compileSchema(schema));
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

  /** Whether a directory walk picks this file (its extension is in `fileExtensions`). */
  accepts(filePath) {
    return this.extensions.has(extname(filePath).toLowerCase());
  }

  /**
   * Analyses one file into a FileAnalysisReport `{filePath, fileChecksum, language, pois, status, error,
   * analysisAttempts}` (`error` is `null` on success). Never throws for a file's own problems: they become
   * its `status` (see {@link REPORT_STATUSES}). A file too large is not read; an empty one is not sent.
   */
  async run(filePath) {
    const report = {
      filePath,
      fileChecksum: null,
      language: LANGUAGES[extname(filePath).toLowerCase()] ?? 'Unknown',
      pois: [],
      status: 'COMPLETED_SUCCESS',
      error: null,
      analysisAttempts: 0,
    };
    let content;
    try {
      const { size } = await stat(filePath);
      if (size > this.config.maxFileSize) {
        return {
          ...report,
          status: 'SKIPPED_FILE_TOO_LARGE',
          error: `File size ${size} exceeds the maximum allowed size of ${this.config.maxFileSize} bytes.`,
        };
      }
      report.fileChecksum = await this._calculateChecksum(filePath);
      content = await readFile(filePath, 'utf8');
    } catch (e) {
      return {
        ...report,
        status: e?.code === 'ENOENT' ? 'FAILED_FILE_NOT_FOUND' : 'FAILED_FILE_READ_ERROR',
        error: `cannot read the file: ${e.message}`,
      };
    }
    if (content.trim() === '') return report;
    const { pois, attempts, status, error } = await this._analyzeFileContent(filePath, report.language, content);
    return status === undefined
      ? { ...report, pois, analysisAttempts: attempts }
      : { ...report, status, error, analysisAttempts: attempts };
  }

  /** The resilient loop: query, sanitize, validate, correct; `attempts` counts the model's answers. */
  async _analyzeFileContent(filePath, language, content) {
    const lines = content.split('\n').length;
    let attempts = 0;
    try {
      const result = await queryWithCorrection({
        query: (prompt, context) => this.llmClient.query(prompt, context),
        prompt: this._generatePrompt(filePath, language, content),
        schema: this.schema(lines),
        maxRetries: this.config.maxRetries,
        backoff: this.config.backoff,
        signal: this.config.signal,
        // What a schema cannot say: a POI does not end before it starts.
        check: (value) =>
          poisOf(value).list.flatMap((p, i) =>
            typeof p?.startLine === 'number' && typeof p?.endLine === 'number' && p.endLine < p.startLine
              ? [
                  {
                    path: `${poisOf(value).at}/${i}/endLine`,
                    message: `endLine ${p.endLine} is before startLine ${p.startLine}`,
                  },
                ]
              : [],
          ),
        onAttempt: (entry) => {
          if (entry.kind === 'answer') attempts = entry.attempt;
          this.config.onAttempt?.(filePath, entry);
        },
      });
      return { pois: poisOf(result.value).list, attempts: result.attempts };
    } catch (e) {
      if (e instanceof SchemaValidationError) {
        const first = e.issues[0];
        const last = first === undefined ? e.message : `${first.path || 'root'}: ${first.message}`;
        return {
          attempts: e.attempts,
          status: 'FAILED_VALIDATION_ERROR',
          error: `Failed to get valid JSON response after ${e.attempts} attempts. Last error: ${last}`,
        };
      }
      if (e?.name === 'AbortError') throw e;
      return { attempts, status: 'FAILED_LLM_API_ERROR', error: `the model could not be reached: ${e.message}` };
    }
  }

  _generatePrompt(filePath, language, content) {
    const lines = content.split('\n');
    const numbered = lines.map((l, i) => `${String(i + 1).padStart(4)}| ${l}`).join('\n');
    const answer =
      this.config.schema === undefined
        ? [
            `Answer with one JSON object {"pois": [...]}; each POI has "name", "type" (one of ${this.poiTypes.join(', ')}),`,
            '"startLine" and "endLine" (1-based, inclusive) and "confidence" (0 to 1).',
          ]
        : [
            'Answer with one JSON value that matches this JSON Schema:',
            JSON.stringify(jsonSchemaOf(this.schema(lines.length))),
          ];
    return [
      'Find the points of interest in this source file: functions, classes, methods, top-level variables, types and imports.',
      ...answer,
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

/** The POIs of an answer (`{pois: [...]}` or the array itself) and the JSON Pointer of that array. */
function poisOf(value) {
  if (Array.isArray(value)) return { list: value, at: '' };
  return { list: Array.isArray(value?.pois) ? value.pois : [], at: '/pois' };
}

/** The JSON Schema behind a schema of any kind, for the prompt. */
function jsonSchemaOf(schema) {
  return compileSchema(schema).jsonSchema ?? {};
}

/**
 * The files under `paths`: a path named as a file is taken as it is; directories are walked in name order
 * (`node_modules` and dot-directories left out), keeping the files `accepts` picks.
 */
export async function* walk(paths, accepts = () => true) {
  for (const p of paths) {
    const s = await stat(p);
    if (!s.isDirectory()) {
      yield p;
      continue;
    }
    const entries = (await readdir(p, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const e of entries) {
      if (e.isDirectory() && (e.name === 'node_modules' || e.name.startsWith('.'))) continue;
      const path = join(p, e.name);
      if (e.isDirectory() || accepts(path)) yield* walk([path], accepts);
    }
  }
}

const HELP = `Usage: entity-scout [options] PATH...

Analyses each source file under PATH with an LLM and prints one FileAnalysisReport per file as a JSON line
on stdout: {filePath, fileChecksum, language, pois, status, error, analysisAttempts}. A summary goes to stderr.
Directories are walked for the files whose extension is listed; a FILE named on the command line is analysed
whatever its extension. status is COMPLETED_SUCCESS, SKIPPED_FILE_TOO_LARGE, FAILED_VALIDATION_ERROR,
FAILED_LLM_API_ERROR, FAILED_FILE_NOT_FOUND or FAILED_FILE_READ_ERROR.

Options:
  --base-url URL      OpenAI-compatible API root (default $OPENAI_BASE_URL, else https://api.openai.com/v1)
  --api-key KEY       API key (default $OPENAI_API_KEY)
  --model NAME        model (default $MODEL, else ${DEFAULT_CONFIG.llmModel})
  --ext LIST          file extensions to analyse, comma-separated (default ${DEFAULT_CONFIG.fileExtensions.join(',')})
  --max-size BYTES    larger files are skipped (default ${DEFAULT_CONFIG.maxFileSize})
  --max-retries N     correction prompts per file (default ${DEFAULT_CONFIG.maxRetries})
  --poi-types LIST    the POI types the answer may use, comma-separated (default ${POI_TYPES.join(',')})
  --schema FILE       the answer's schema instead: a JSON Schema file, or a module whose default export (or
                      export schema) is a JSON Schema or a zod, valibot, arktype or effect schema
  --stream            stream each answer (server-sent events)
  --help              this text

Exit status: 0 when every file was processed or skipped, 1 when any ended in a FAILED_ status, 2 on bad usage.`;

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
        'poi-types': { type: 'string' },
        schema: { type: 'string' },
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
    const schema = v.schema === undefined ? undefined : await loadSchema(v.schema);
    scout = new EntityScout({
      schema,
      poiTypes: v['poi-types'] === undefined ? POI_TYPES : v['poi-types'].split(',').filter((t) => t !== ''),
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
  const accepts = (file) => scout.accepts(file);
  let answers = 0;
  let pois = 0;
  const cwd = process.cwd();
  try {
    for await (const file of walk(args.positionals, accepts)) {
      const report = await scout.run(file);
      counts[outcomeOf(report.status)]++;
      answers += report.analysisAttempts;
      pois += report.pois.length;
      stdout.write(`${JSON.stringify(report)}\n`);
      stderr.write(
        `${report.status.padEnd(23)} ${String(report.analysisAttempts).padStart(2)} answer(s) ${String(report.pois.length).padStart(3)} POIs  ${relative(cwd, file)}${report.error === null ? '' : `  (${report.error})`}\n`,
      );
    }
  } catch (e) {
    stderr.write(`entity-scout: ${e.message}\n`);
    return 2;
  }
  stderr.write(
    `files: ${counts.processed} processed, ${counts.skipped} skipped, ${counts.error} error; ${answers} answers; ${pois} POIs\n`,
  );
  return counts.error === 0 ? 0 : 1;
}

/** A schema from a `.json` file, or a module's default export (or export `schema`). */
async function loadSchema(file) {
  if (/\.json$/i.test(file)) return JSON.parse(await readFile(file, 'utf8'));
  const module = await import(pathToFileURL(resolve(file)).href);
  const schema = module.default ?? module.schema;
  if (schema === undefined) throw new TypeError(`${file} exports no schema (default export or export schema)`);
  return schema;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
