// The simulator URLs come from the server's environment (the browser test starts the simulators first).
export const load = () => ({ simulators: process.env.SIM_QUERY ?? '' })
