/**
 * Seed 003's chain-of-thought node on a multi-step problem, with a scripted model standing in for
 * the LLM: each thought evaluates the previous one, executes the next pending step and updates
 * the nested plan. Prints every thought and the plan as it evolves.
 *
 * Run: npm run example:chain-of-thought
 */
import { ChainOfThoughtNode, formatPlan } from '@tot/core/cot';
import { mockModel } from '@tot/core/testing';

const problem = 'A train leaves at 09:40 and travels 210 km at 84 km/h, then waits 12 minutes. When is it ready to leave again?';

// What a model might answer, thought by thought — including the classic unquoted colon ("09:40")
// that breaks naive YAML parsers.
const replies = [
  `current_thinking: |
  The trip takes 210 / 84 hours; then add the 12-minute wait to the 09:40 departure.
planning:
  - description: "Understand the problem"
    status: "Done"
    result: "departure + travel time + wait"
  - description: "Compute the travel time"
    status: "Pending"
    sub_steps:
      - description: "210 / 84 in hours"
        status: "Pending"
      - description: "Convert to hours and minutes"
        status: "Pending"
  - description: "Add the times"
    status: "Pending"
  - description: "Conclusion"
    status: "Pending"
next_thought_needed: true`,
  `current_thinking: |
  The previous thought is right. 210 / 84 = 2.5 hours, which is 2 h 30 min.
planning:
  - description: "Understand the problem"
    status: "Done"
    result: "departure + travel time + wait"
  - description: "Compute the travel time"
    status: "Done"
    result: 2 h 30 min
    sub_steps:
      - description: "210 / 84 in hours"
        status: "Done"
        result: "2.5"
      - description: "Convert to hours and minutes"
        status: "Done"
        result: "2 h 30 min"
  - description: "Add the times"
    status: "Pending"
  - description: "Conclusion"
    status: "Pending"
next_thought_needed: true`,
  `current_thinking: Adding: 09:40 + 2 h 30 min = 12:10, plus 12 min = 12:22.
planning:
  - description: "Add the times"
    status: Done
    result: arrives 12:10, ready 12:22
  - description: "Conclusion"
    status: "Pending"
next_thought_needed: true`,
  `current_thinking: |
  The train is ready to leave again at 12:22.
planning:
  - description: "Conclusion"
    status: "Done"
    result: "12:22"
next_thought_needed: false`,
];

const node = new ChainOfThoughtNode({ model: mockModel(replies), maxThoughts: 8 });
node.on('thought.completed', (thought) => {
  console.log(`\nThought ${thought.thoughtNumber}:\n  ${thought.currentThinking.trim().replace(/\n/g, '\n  ')}`);
  console.log(`Plan:\n${formatPlan(thought.planning, 1)}`);
});
const result = await node.run(problem);
console.log(`\n${result.stopReason === 'completed' ? 'Solution' : 'Stopped'}: ${result.solution ?? '(none)'} — ${result.thoughts.length} thoughts`);
