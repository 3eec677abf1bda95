// React Native is not installed here: the one API the resume guide uses.
declare module 'react-native' {
  export const AppState: { addEventListener(event: 'change', listener: (state: string) => void): { remove(): void } }
}
