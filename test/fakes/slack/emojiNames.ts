/**
 * Emoji short names `reactions.add` accepts: a subset of Slack's standard set (every name OpenAB's
 * Unicode-to-Slack table produces, its `grey_question` fallback, and the common ones), spelt as Slack
 * spells them — `thinking_face`, not `thinking`; `+1` and its alias `thumbsup`. A workspace's custom
 * emoji are added per fake (`FakeSlack.addEmoji`). A skin tone is `name::skin-tone-2` … `-6`.
 */
export const STANDARD_EMOJI: ReadonlySet<string> = new Set(
  `eyes thinking_face fire technologist zap ok scream no_entry_sign blush sunglasses saluting_face nerd_face smirk v
  muscle mechanical_arm yawning_face fearful white_check_mark x wrench microphone grey_question warning
  +1 thumbsup -1 thumbsdown heart tada rocket smile smiley grinning grin joy laughing wink slightly_smiling_face
  upside_down_face heart_eyes star-struck partying_face hugging_face face_with_monocle sweat_smile sob cry angry rage
  confused neutral_face expressionless relieved pensive sleeping zzz skull ghost robot_face brain see_no_evil
  hear_no_evil speak_no_evil pray clap wave raised_hands ok_hand raised_hand point_up point_down point_left
  point_right handshake writing_hand 100 heavy_check_mark ballot_box_with_check hourglass hourglass_flowing_sand
  stopwatch alarm_clock bulb memo pencil pencil2 mag hammer_and_wrench gear construction speech_balloon
  thought_balloon question grey_exclamation exclamation bangbang red_circle large_green_circle large_yellow_circle
  large_blue_circle large_orange_circle white_circle black_circle checkered_flag star star2 sparkles boom dizzy
  anger page_facing_up books package link lock key bell loudspeaker mega email inbox_tray outbox_tray calendar date
  chart_with_upwards_trend bar_chart clipboard pushpin paperclip scissors wastebasket file_folder open_file_folder
  computer keyboard desktop_computer iphone telephone_receiver battery electric_plug satellite bug test_tube
  microscope globe_with_meridians sunny cloud umbrella snowflake coffee tea beer beers pizza cake birthday gift
  balloon trophy sports_medal first_place_medal crown gem moneybag heavy_plus_sign heavy_minus_sign
  heavy_multiplication_x arrows_counterclockwise repeat arrow_right arrow_left arrow_up arrow_down
  leftwards_arrow_with_hook information_source no_entry octagonal_sign rotating_light sos new free up cool
  white_heart black_heart green_heart blue_heart yellow_heart purple_heart broken_heart sweat hankey poop`.split(/\s+/),
);

const SKIN_TONE = /::skin-tone-[2-6]$/;

/** Whether `name` is an emoji Slack knows here (standard or one of `custom`), with or without a skin tone. */
export function isKnownEmoji(name: string, custom: ReadonlySet<string>): boolean {
  const base = name.replace(SKIN_TONE, "");
  return STANDARD_EMOJI.has(base) || custom.has(base);
}
