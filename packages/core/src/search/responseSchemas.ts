import * as z from 'zod/mini'

// Envelope shapes only (unknown fields kept). Rows are checked by hand in the search drivers with the
// same field table live frames use: a zod object schema per row copies every row, which B7 measured
// as the largest cost of a search after the network.
export const enigmaResponseSchema = z.looseObject({
  total: z.number(),
  count: z.number(),
  data: z.array(z.unknown()),
})

export const rasaResponseSchema = z.looseObject({
  count: z.number(),
  position_state: z.array(z.unknown()),
})
