// Sample responses for the demo, each a defect class models really produce.
export const samples = [
  {
    name: 'Game turn with a think block and a fence',
    text: '<think>\nThe goblin is wounded. Attack? Options: {"chosenIndex": 1}\n</think>\nHere is my action:\n```json\n{\n  "chosenIndex": 3,\n  "speech": "You\'ll regret crossing me, goblin!",\n  "thoughts": "It\'s wounded, press the advantage.",\n  "notes": [{"text": "Goblin flees at low HP", "subject": "goblin",},],\n}\n```',
  },
  {
    name: 'Truncated code-analysis report',
    text: '```json\n{\n  "filePath": "src/utils/math.js",\n  "entities": [\n    {"type": "Function", "name": "add", "startLine": 1},\n    {"type": "Class", "name": "Calc',
  },
  {
    name: 'Chatty answer with Python literals',
    text: "Of course! Here's the character:\n\n{'name': 'Thorin', 'alive': True, 'spouse': None, 'stats': {'str': 16, 'dex': 12,}, // stats\n 'inventory': ['axe' 'shield']}\n\nAnything else?",
  },
  {
    name: 'Unquoted keys, comments, curly quotes',
    text: '{\n  name: “Ada”,  # display name\n  status: active,\n  version: 1.2.3,\n  zip: 02134,\n  items: [1, 2, ...],\n}',
  },
];
