import { z } from 'zod';

export const evaluationSchema = z.object({
  score: z.number().min(0).max(10),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  dimensionScores: z.record(z.string(), z.number()).optional(),
});

export const nodeSchema = z.object({
  id: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  childrenIds: z.array(z.string().min(1)),
  depth: z.number().int().nonnegative(),
  content: z.string(),
  actionType: z.string().optional(),
  evaluation: evaluationSchema.nullable(),
  status: z.enum(['pending', 'expanded', 'pruned', 'terminal']),
  metadata: z.record(z.string(), z.unknown()),
});

export const searchConfigSchema = z.object({
  strategy: z.string().min(1),
  maxDepth: z.number().int().nonnegative(),
  branchingFactor: z.number().int().positive(),
  pruningThreshold: z.number().min(0).max(10),
});

export const searchStateSchema = z.object({
  currentDepth: z.number().int().nonnegative(),
  frontier: z.array(z.string()),
  bestPath: z.array(z.string()),
});

/** What `setSearchState` takes: some of the fields, and no others. */
export const searchStateUpdateSchema = z.strictObject(searchStateSchema.shape).partial();

const labelOptionsShape = { maxLabelLength: z.number().int().positive().optional(), showScores: z.boolean().optional(), highlight: z.array(z.string()).readonly().optional() };
export const mermaidOptionsSchema = z.strictObject({ direction: z.enum(['TD', 'LR']).optional(), ...labelOptionsShape });
export const dotOptionsSchema = z.strictObject({ rankdir: z.enum(['TB', 'LR']).optional(), ...labelOptionsShape });

export const treeJsonSchema = z.object({
  version: z.literal(1),
  taskId: z.string().min(1),
  problem: z.string(),
  taskType: z.string(),
  searchConfig: searchConfigSchema,
  rootId: z.string().min(1),
  nodes: z.record(z.string(), nodeSchema),
  searchState: searchStateSchema,
});

export const newThoughtSchema = z.object({
  content: z.string(),
  actionType: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  evaluation: evaluationSchema.optional(),
});

export const treeOptionsSchema = z.strictObject({
  problem: z.string(),
  taskId: z.string().min(1).default('task'),
  taskType: z.string().default('general'),
  searchConfig: z.strictObject(searchConfigSchema.shape).partial().default({}),
  rootContent: z.string().optional(),
  rootMetadata: z.record(z.string(), z.unknown()).optional(),
});
