export type ImageDetail = 'low' | 'high' | 'auto';

export interface ImageSize {
  width: number;
  height: number;
}

/** Whose formula prices an image: the provider, and the model where the provider's price differs by model. */
export interface ImageBilling {
  providerId: string;
  model?: string;
}
