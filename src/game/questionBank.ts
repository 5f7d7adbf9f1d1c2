// The board's question bank (the spec: squares 7-56, "50 squares, each with a multiple-choice
// question from one of five topics (a bank of 50 questions)"). The square a question stands on is
// its identity: an answer is recorded by square (square_completions), so a square's topic and text
// come from here, and the teachers' per-topic and per-question figures are grouped by it. Squares
// rotate through the topics (7: variables, 8: conditionals, ... 12: variables again), so each half
// of the board asks each topic.
import { QUESTION_SECTION_MAX_SQUARE, QUESTION_SECTION_MIN_SQUARE } from "./progress.js";

export const TOPICS = ["variables_and_types", "conditionals", "loops", "functions", "data_structures"] as const;
export type Topic = (typeof TOPICS)[number];

/** How a topic is named to people (dashboards, CSV). */
export const TOPIC_TITLES: Record<Topic, string> = {
  variables_and_types: "Variables and data types",
  conditionals: "Conditionals and logic",
  loops: "Loops",
  functions: "Functions",
  data_structures: "Lists and data structures",
};

const QUESTIONS_BY_TOPIC: Record<Topic, readonly string[]> = {
  variables_and_types: [
    "What does the statement x = 5 do?",
    "Which data type holds the value 3.14?",
    "What is the value of y after x = 2 and then y = x + 3?",
    "Which of these is a string: 42, \"42\" or 42.0?",
    "What type is the result of 7 / 2 in Python?",
    "Which name is a valid variable name: 2cool, cool_2 or cool-2?",
    "What does x += 1 do to x?",
    "What is the value of a boolean that is not True?",
    "What does int(\"12\") return?",
    "Why should a variable have a name that explains itself?",
  ],
  conditionals: [
    "What does an if statement do?",
    "When does the else branch of an if run?",
    "What is the value of 5 > 3 and 2 > 4?",
    "What is the value of not (1 == 1)?",
    "Which operator checks whether two values are equal: = or ==?",
    "What does elif let a program do?",
    "What is the value of True or False?",
    "Which branch runs for x = 0 in: if x > 0 … elif x == 0 … else …?",
    "What is printed by: if 10 % 2 == 0: print(\"even\")?",
    "Why can the order of elif branches matter?",
  ],
  loops: [
    "How many times does for i in range(3) run its body?",
    "When does a while loop stop?",
    "What does the keyword break do inside a loop?",
    "What does continue do inside a loop?",
    "What are the values of i in for i in range(2, 5)?",
    "What is an infinite loop?",
    "What is the sum printed by adding every i of range(1, 4)?",
    "Which loop fits best when the number of repeats is known in advance?",
    "How many lines does a loop over a list of 4 names print with one print per name?",
    "What is a loop inside a loop called?",
  ],
  functions: [
    "What keyword defines a function in Python?",
    "What does a return statement do?",
    "What is a parameter of a function?",
    "What does a function return when it has no return statement?",
    "What is printed by def double(n): return n * 2 and then print(double(4))?",
    "Why split a program into functions?",
    "What is the difference between defining and calling a function?",
    "What is a variable created inside a function called?",
    "Can a function call another function?",
    "What is a function that calls itself called?",
  ],
  data_structures: [
    "What is the index of the first item of a list?",
    "What does len([3, 6, 9]) return?",
    "What does append do to a list?",
    "What does a dictionary map?",
    "What is names[-1] for names = [\"ada\", \"alan\", \"grace\"]?",
    "Which structure holds key-value pairs?",
    "What happens when you read an index past the end of a list?",
    "What does \"b\" in [\"a\", \"b\"] return?",
    "What is a list of lists useful for?",
    "What does sorted([3, 1, 2]) return?",
  ],
};

export interface BankQuestion {
  square: number;
  topic: Topic;
  text: string;
}

/** The bank, one question per question square, in square order. */
export const QUESTION_BANK: readonly BankQuestion[] = Array.from({ length: QUESTION_SECTION_MAX_SQUARE - QUESTION_SECTION_MIN_SQUARE + 1 }, (_, i) => {
  const topic = TOPICS[i % TOPICS.length];
  return { square: QUESTION_SECTION_MIN_SQUARE + i, topic, text: QUESTIONS_BY_TOPIC[topic][Math.floor(i / TOPICS.length)] };
});

/** The question on a square, or undefined for a square that holds none (lessons, the boss section). */
export function questionOn(square: number): BankQuestion | undefined {
  return QUESTION_BANK[square - QUESTION_SECTION_MIN_SQUARE];
}
