import * as z from 'zod/mini'

// Envelope shapes only: rows stay raw (unknown fields kept); known row fields are type-checked with
// the same table the live frames use (validateRawFields).
export const enigmaResponseSchema = z.looseObject({
  total: z.number(),
  count: z.number(),
  data: z.array(z.looseObject({ data: z.union([z.looseObject({}), z.string()]) })),
})

export const rasaResponseSchema = z.looseObject({
  count: z.number(),
  position_state: z.array(z.looseObject({})),
})
