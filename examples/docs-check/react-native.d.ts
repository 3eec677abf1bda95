// React Native and NetInfo are not installed here: the APIs the guides use.
declare module 'react-native' {
  export const AppState: { addEventListener(event: 'change', listener: (state: string) => void): { remove(): void } }
}
declare module '@react-native-community/netinfo' {
  const NetInfo: { addEventListener(listener: (state: { isConnected: boolean | null; type: string; details: unknown }) => void): () => void }
  export default NetInfo
}
