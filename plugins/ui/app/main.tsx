import { render } from 'preact';
import { App } from './app';
import { store } from './store';

store.start();
const root = document.getElementById('app')!;
root.textContent = ''; // the loading note
render(<App />, root);
