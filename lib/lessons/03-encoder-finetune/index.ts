export * from './encoder-finetune';
