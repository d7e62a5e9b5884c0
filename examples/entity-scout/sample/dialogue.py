import random
from dataclasses import dataclass


@dataclass
class Line:
    speaker: str
    text: str
    mood: str = "calm"


class Innkeeper:
    def __init__(self, name):
        self.name = name
        self.greetings = ["Welcome, traveller.", "Sit by the fire."]

    def greet(self):
        return Line(self.name, random.choice(self.greetings))


def pick_reply(options, mood):
    matching = [o for o in options if o.mood == mood]
    return matching[0] if matching else options[0]
