// Sample responses for the demo, each with the schema an application would hold it to.
const turnSchema = {
  type: 'object',
  properties: {
    chosenIndex: { type: 'integer', minimum: 1 },
    speech: { type: 'string', minLength: 1 },
    thoughts: { type: 'string' },
    notes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { text: { type: 'string' }, subject: { type: 'string' } },
        required: ['text', 'subject'],
        additionalProperties: false,
      },
    },
  },
  required: ['chosenIndex', 'speech', 'thoughts'],
  additionalProperties: false,
};

export const samples = [
  {
    name: 'Game turn with a think block and a fence',
    text: '<think>\nThe goblin is wounded. Attack? Options: {"chosenIndex": 1}\n</think>\nHere is my action:\n```json\n{\n  "chosenIndex": "3",\n  "speech": "You\'ll regret crossing me, goblin!",\n  "thoughts": "It\'s wounded, press the advantage.",\n  "notes": [{"text": "Goblin flees at low HP", "subject": "goblin",},],\n}\n```',
    schema: turnSchema,
  },
  {
    name: 'Truncated code-analysis report',
    text: '```json\n{\n  "filePath": "src/utils/math.js",\n  "entities": [\n    {"type": "Function", "name": "add", "startLine": 1, "endLine": 3},\n    {"type": "Class", "name": "Calc',
    schema: {
      type: 'object',
      properties: {
        filePath: { type: 'string' },
        entities: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              type: { enum: ['Function', 'Class', 'Variable'] },
              name: { type: 'string' },
              startLine: { type: 'integer', minimum: 1 },
              endLine: { type: 'integer', minimum: 1 },
            },
            required: ['type', 'name', 'startLine', 'endLine'],
          },
        },
      },
      required: ['filePath', 'entities'],
    },
  },
  {
    name: 'Chatty answer with Python literals',
    text: "Of course! Here's the character:\n\n{'name': 'Thorin', 'alive': True, 'spouse': None, 'stats': {'str': 16, 'dex': 12,}, // stats\n 'inventory': ['axe' 'shield']}\n\nAnything else?",
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        alive: { type: 'boolean' },
        spouse: { type: ['string', 'null'] },
        stats: { type: 'object', additionalProperties: { type: 'integer' } },
        inventory: { type: 'array', items: { type: 'string' } },
      },
      required: ['name', 'alive', 'inventory'],
    },
  },
  {
    name: 'Unquoted keys, # comments, curly quotes',
    text: '{\n  name: “Ada”,  # display name\n  status: active,\n  version: 1.2.3,\n  zip: 02134,\n  items: [1, 2, ...],\n}',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        status: { enum: ['active', 'retired'] },
        version: { type: 'string' },
        zip: { type: 'string', pattern: '^[0-9]{5}$' },
        items: { type: 'array', items: { type: 'integer' } },
      },
      required: ['name', 'status'],
    },
  },
  {
    name: 'Wrong answer: the schema catches it',
    text: 'Assistant: Sure!\n{"chosenIndex": 0, "speech": "", "mood": "angry"}',
    schema: turnSchema,
  },
];
